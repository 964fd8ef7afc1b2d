//! The compilation pipeline, as a linear script: source → tokens → AST →
//! typed AST → IR → optimized IR → PTX. Each `--emit` stops at one of
//! these steps and returns its text.
//!
//! Nothing here touches files: the binary (`main.rs`) reads the input and
//! writes the output, and the files `#include` names are read through the
//! [`FileLoader`] the caller gives ([`crate::files::FsLoader`] for the
//! command line), so the whole pipeline can be driven from tests.

use backend_nvptx::{RegallocMode, Target};
use frontend::{Diagnostic, FileLoader, NoFiles, SourceMap};
use midend::ir::Module;
use midend::passes::{self, memspace, restrict, PassError, Pipeline, Report};
use midend::text::{write_module, PrintOptions};
use stdx::itanium::{readable, readable_text};

/// What the compiler should print.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
pub enum Emit {
    /// The token stream after preprocessing.
    Tokens,
    /// The syntax tree.
    Ast,
    /// The IR as lowered from the source, before any pass.
    Ir,
    /// The IR after the optimization pipeline of the chosen `-O` level.
    IrOpt,
    /// The control-flow graphs of [`Emit::IrOpt`]'s IR as Graphviz DOT
    /// (at `-O0`, the CFG as lowered).
    Dot,
    /// PTX assembly (the default).
    #[default]
    Ptx,
    /// The machine IR just before PTX printing (after register allocation).
    Mir,
    /// An x86-64 ELF object embedding the PTX as data ([`compile_object`]).
    Obj,
}

/// Everything the command line can ask of one compilation.
#[derive(Clone, Debug)]
pub struct CompileOptions {
    pub target: Target,
    /// 0..=3, as `-O0`..`-O3`.
    pub opt_level: u8,
    /// `-D NAME[=VALUE]`.
    pub defines: Vec<(String, Option<String>)>,
    /// `--ptx-version X.Y`: overrides the `.version` the backend would choose.
    pub ptx_version: Option<(u32, u32)>,
    pub emit: Emit,
    /// Print each instruction's source span (`!start..end`) in IR output.
    pub ir_spans: bool,
    /// `--fmad`: contract multiply-adds into `fma` (nvcc's default).
    pub fmad: bool,
    /// `--memspace=on|off`; `None`: on at -O1 and above.
    pub memspace: Option<bool>,
    /// The knobs of memory-space inference.
    pub memspace_opts: memspace::Options,
    /// `--regalloc`: keep virtual registers or compact them with regalloc2.
    pub regalloc: RegallocMode,
    /// `-ftz`, `-prec-div`, `-prec-sqrt` and `--use_fast_math`.
    pub float: FloatOptions,
    /// `--process-restrict=0|1`; `None`: on at -O1 and above.
    pub process_restrict: Option<bool>,
    /// The knobs of restrict processing (`--apply-multi-level-restrict`,
    /// `--allow-restrict-in-struct`, `--dump-restrict`).
    pub restrict_opts: restrict::Options,
    /// `--explain-nc`: say for every global load of a kernel whether it
    /// became `ld.global.nc`, and why not.
    pub explain_nc: bool,
    /// What to do with the frontend's warnings (`-w`, `-Werror`).
    pub warnings: WarningMode,
    /// `--disable-pass NAME`: passes left out of the `-O` pipeline, so that
    /// a student (or a test) can see what each one changes.
    pub disable_passes: Vec<String>,
    /// `--threads N`: how many threads optimize and select the functions of
    /// a module (`0`, the default: as many as the work is worth, up to one
    /// per core and at most eight). The output is the same for every count.
    pub threads: usize,
    /// `--error-limit N`: the frontend stops after N errors (0: no limit;
    /// default [`frontend::DEFAULT_ERROR_LIMIT`]).
    pub error_limit: usize,
    /// `-I DIR`: the folders `#include` searches, in order.
    pub include_dirs: Vec<String>,
    /// `-include FILE`: files read before the input, in order.
    pub pre_includes: Vec<String>,
    /// `-std=c++NN` (`None`: nvcc's default, GNU C++17).
    pub std: Option<frontend::CxxStd>,
    /// `-rdc=true`: relocatable device code (`frontend::Options::relocatable`).
    pub relocatable: bool,
    /// `-lineinfo` (`--generate-line-info`): `.loc` before the instructions
    /// and `.file` lines naming the source files, as nvcc writes them.
    pub line_info: bool,
    /// The folder a relative file name is written against in `.file` (the
    /// working directory, as nvcc writes it); `None` writes the names as
    /// the compilation knows them.
    pub source_dir: Option<String>,
}

/// nvcc's `-w` and `-Werror all-warnings` (kernelc also accepts `-Werror`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum WarningMode {
    /// Print warnings on stderr and go on (the default).
    #[default]
    Show,
    /// `-w`: print no warnings.
    Silence,
    /// `-Werror`: a warning fails the compilation, as an error.
    Error,
}

/// Applies the warning mode to frontend diagnostics: drops warnings under
/// `-w`, turns them into errors under `-Werror`.
pub fn apply_warning_mode(diags: Vec<Diagnostic>, mode: WarningMode) -> Vec<Diagnostic> {
    diags
        .into_iter()
        .filter(|d| d.is_error() || mode != WarningMode::Silence)
        .map(|mut d| {
            if !d.is_error() && mode == WarningMode::Error {
                d.severity = frontend::Severity::Error;
                d.notes
                    .push("treated as an error because of `-Werror`".into());
            }
            d
        })
        .collect()
}

impl CompileOptions {
    /// What the PTX's first line says made it: the version and every
    /// option that changes the output, spelled as on the command line.
    pub fn producer(&self) -> String {
        // The floating-point options appear only when they differ from
        // nvcc's defaults.
        let f = self.float.effective();
        let mut float = String::new();
        // With fast math, its defaults are left unsaid.
        let default = FloatOptions {
            fast_math: f.fast_math,
            ..FloatOptions::default()
        }
        .effective();
        if f.fast_math {
            float.push_str(" --use_fast_math");
        }
        for (on, value, name) in [
            (f.ftz != default.ftz, f.ftz, "-ftz"),
            (f.prec_div != default.prec_div, f.prec_div, "-prec-div"),
            (f.prec_sqrt != default.prec_sqrt, f.prec_sqrt, "-prec-sqrt"),
        ] {
            if on {
                float.push_str(&format!(" {name}={value}"));
            }
        }
        // Everything else that can change the output, when it is not the
        // default: the macros, the PTX version, the passes and their knobs.
        let mut extra = String::new();
        for (name, value) in &self.defines {
            match value {
                Some(v) => extra.push_str(&format!(" -D{name}={v}")),
                None => extra.push_str(&format!(" -D{name}")),
            }
        }
        if let Some((major, minor)) = self.ptx_version {
            extra.push_str(&format!(" --ptx-version {major}.{minor}"));
        }
        for pass in &self.disable_passes {
            extra.push_str(" --disable-pass ");
            extra.push_str(pass);
        }
        if let Some(on) = self.memspace {
            extra.push_str(if on {
                " --memspace=on"
            } else {
                " --memspace=off"
            });
        }
        let (m, dm) = (&self.memspace_opts, memspace::Options::default());
        for (differs, text) in [
            (
                m.conservative != dm.conservative,
                " --memspace-conservative".to_string(),
            ),
            (
                m.clone_budget != dm.clone_budget,
                format!(" --clone-budget {}", m.clone_budget),
            ),
            (
                m.param_always_point_to_global != dm.param_always_point_to_global,
                format!(
                    " --param-always-point-to-global={}",
                    m.param_always_point_to_global
                ),
            ),
            (
                m.track_indir_load != dm.track_indir_load,
                format!(" --track-indir-load={}", m.track_indir_load),
            ),
            (
                m.track_int2ptr != dm.track_int2ptr,
                format!(" --track-int2ptr={}", m.track_int2ptr),
            ),
            (m.assume_global, " --memspace-assume-global".to_string()),
        ] {
            if differs {
                extra.push_str(&text);
            }
        }
        if let Some(on) = self.process_restrict {
            extra.push_str(if on {
                " --process-restrict=1"
            } else {
                " --process-restrict=0"
            });
        }
        if self.restrict_opts.multi_level {
            extra.push_str(" --apply-multi-level-restrict");
        }
        if self.restrict_opts.allow_in_struct {
            extra.push_str(" --allow-restrict-in-struct");
        }
        if self.line_info {
            extra.push_str(" -lineinfo");
        }
        format!(
            "kernelc {} (-arch={} -O{} --fmad={}{float} --regalloc={}{extra})",
            env!("CARGO_PKG_VERSION"),
            self.target,
            self.opt_level,
            self.fmad,
            self.regalloc
        )
    }
}

/// nvcc's floating-point options other than `--fmad`, as the command line
/// gave them. They change how the frontend types `/` and the math
/// functions (see docs/math.md).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub struct FloatOptions {
    /// `-ftz=true|false` if given: `true` flushes `f32` subnormals to zero
    /// (the IR's `ftz` function attribute, the `.ftz` forms of PTX).
    pub ftz: Option<bool>,
    /// `-prec-div=true|false` if given: `false` makes `float` division
    /// approximate.
    pub prec_div: Option<bool>,
    /// `-prec-sqrt=true|false` if given: recorded; `sqrtf` stays correctly
    /// rounded.
    pub prec_sqrt: Option<bool>,
    /// `--use_fast_math`: the fast math intrinsics, and the defaults
    /// [`Self::effective`] gives the others.
    pub fast_math: bool,
}

/// The floating-point options in force, every one decided.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct FloatMode {
    pub ftz: bool,
    pub prec_div: bool,
    pub prec_sqrt: bool,
    pub fast_math: bool,
}

impl FloatOptions {
    /// The options in force. `--use_fast_math` makes `-ftz=true
    /// -prec-div=false -prec-sqrt=false` the defaults, as nvcc documents;
    /// an option given explicitly wins in either order, as in nvcc
    /// (`--use_fast_math -prec-div=true` divides with `div.rn.ftz.f32`).
    pub fn effective(self) -> FloatMode {
        let fast = self.fast_math;
        FloatMode {
            ftz: self.ftz.unwrap_or(fast),
            prec_div: self.prec_div.unwrap_or(!fast),
            prec_sqrt: self.prec_sqrt.unwrap_or(!fast),
            fast_math: fast,
        }
    }
}

/// Whether multiply-adds are contracted: `--fmad` (nvcc's default is true,
/// and `--use_fast_math` implies it; an explicit `--fmad=false` wins over
/// fast math, as in nvcc).
pub fn fmad_in_force(opts: &CompileOptions) -> bool {
    opts.fmad
}

impl Default for CompileOptions {
    fn default() -> Self {
        CompileOptions {
            target: Target::parse("sm_80").expect("sm_80 is in the target table"),
            opt_level: 3,
            defines: Vec::new(),
            ptx_version: None,
            emit: Emit::Ptx,
            ir_spans: false,
            fmad: true,
            memspace: None,
            memspace_opts: memspace::Options::default(),
            regalloc: RegallocMode::Virtual,
            float: FloatOptions::default(),
            process_restrict: None,
            restrict_opts: restrict::Options::default(),
            explain_nc: false,
            warnings: WarningMode::Show,
            disable_passes: Vec::new(),
            threads: 0,
            error_limit: frontend::DEFAULT_ERROR_LIMIT,
            include_dirs: Vec::new(),
            pre_includes: Vec::new(),
            std: None,
            relocatable: false,
            line_info: false,
            source_dir: None,
        }
    }
}

/// A failed compilation: the diagnostics, already rendered with source
/// snippets, and (where they came from the source) each one located, for
/// callers that show them their own way (the Python package).
#[derive(Clone, Debug)]
pub struct CompileError {
    pub rendered: String,
    /// The diagnostics behind `rendered`, located; empty for a failure that
    /// has no place in the source (a bad pass list, a backend error without
    /// a span, an internal error).
    pub diagnostics: Vec<DiagnosticRecord>,
}

impl CompileError {
    /// A failure that has no place in the source: its text alone.
    pub fn unlocated(rendered: String) -> CompileError {
        CompileError {
            rendered,
            diagnostics: Vec::new(),
        }
    }
}

/// One diagnostic, located in the files of a compilation: what `rendered`
/// shows as `error[E0001]: ... --> file:line:col`, as data.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DiagnosticRecord {
    pub severity: frontend::Severity,
    /// `E0001`, `W0002`; `None` for a later stage's diagnostic.
    pub code: Option<String>,
    pub message: String,
    /// Where it points: the file's name as the source map has it, and the
    /// 1-based line and column; `None` for a diagnostic about the run as a
    /// whole (the error limit).
    pub location: Option<(String, usize, usize)>,
    /// The labels' texts and the notes, in the order they are rendered.
    pub notes: Vec<String>,
}

/// `diags` located in the files of `map`.
pub fn diagnostic_records(map: &SourceMap, diags: &[Diagnostic]) -> Vec<DiagnosticRecord> {
    diags
        .iter()
        .map(|d| {
            let location = d.located.then(|| {
                let (file, line, column) = map.position(d.span.start);
                (file.to_string(), line, column)
            });
            let labels = d.labels.iter().map(|(_, text)| text.clone());
            DiagnosticRecord {
                severity: d.severity,
                code: d.code.map(|c| c.to_string()),
                message: d.message.clone(),
                location,
                notes: labels.chain(d.notes.iter().cloned()).collect(),
            }
        })
        .collect()
}

impl std::fmt::Display for CompileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.rendered)
    }
}

/// A successful compilation: the requested output, and what the compiler
/// has to say on the side (warnings, `--dump-ip-msp`, `--explain-memspace`),
/// meant for stderr.
#[derive(Clone, Debug, Default)]
pub struct Compiled {
    pub output: String,
    pub messages: String,
}

/// Compiles one source file held in memory and returns the requested output.
pub fn compile_source(
    file_name: &str,
    source: &str,
    opts: &CompileOptions,
) -> Result<String, CompileError> {
    compile_source_with_messages(file_name, source, opts).map(|c| c.output)
}

/// The pass pipeline of a compilation (and of `kernelc run`): the `-O`
/// pipeline, with memory-space inference and restrict processing added or
/// removed by `--memspace` and `--process-restrict`, the passes of
/// `--disable-pass` left out, and atomics on local or const memory
/// reported at every level.
pub fn pipeline_for(opts: &CompileOptions) -> Pipeline {
    let options = passes::Options {
        check_atomics: true,
        ..pass_options(opts)
    };
    let mut pipeline = Pipeline::for_level(opts.opt_level, fmad_in_force(opts), options);
    match opts.memspace {
        Some(false) => pipeline.remove("memspace"),
        Some(true) if !pipeline.contains("memspace") => {
            pipeline.insert_after(&["contract"], "memspace")
        }
        _ => {}
    }
    match opts.process_restrict {
        Some(false) => pipeline.remove("restrict"),
        Some(true) if !pipeline.contains("restrict") => {
            pipeline.insert_after(&["memspace", "contract"], "restrict")
        }
        _ => {}
    }
    for name in &opts.disable_passes {
        pipeline.remove(name);
    }
    pipeline
}

/// What the passes run with under `opts`: the knobs of memory-space
/// inference, restrict processing and `--explain-nc`, the threads, and
/// whether to verify after every pass ([`verify_each_pass`]) or once.
pub fn pass_options(opts: &CompileOptions) -> passes::Options {
    passes::Options {
        memspace: opts.memspace_opts.clone(),
        restrict: opts.restrict_opts.clone(),
        explain_nc: opts.explain_nc,
        threads: opts.threads,
        verify: if verify_each_pass() {
            passes::Verify::EachPass
        } else {
            passes::Verify::Once
        },
        check_atomics: false,
    }
}

/// Checks the names given to `--disable-pass`: each must name a pass of
/// the pipeline.
pub fn check_pass_names(names: &[String]) -> Result<Vec<String>, String> {
    for name in names {
        if midend::passes::find(name).is_none() {
            let known: Vec<&str> = midend::passes::PASSES.iter().map(|p| p.name).collect();
            return Err(format!(
                "error: `--disable-pass {name}`: no such pass; the passes are: {}",
                known.join(", ")
            ));
        }
    }
    Ok(names.to_vec())
}

/// Renders what the passes reported, the one place for every command:
/// first the diagnostics, with snippets of `source` when the module came
/// from C source (`Some("")` for IR that may carry spans into a file not
/// at hand), or as `error: message (in @function)` lines without one;
/// then the transcripts, each line with its topic (`ip-msp:`,
/// `memspace:`, `restrict:`); then the `--explain-nc` notes.
pub fn render_report(report: &Report, file_name: &str, source: Option<&str>) -> String {
    let map = source.map(|text| SourceMap::new(file_name, text));
    render_report_in(report, map.as_ref())
}

/// [`render_report`] for a module made from the files of `map` (`None`: no
/// C source at hand).
pub fn render_report_in(report: &Report, map: Option<&SourceMap>) -> String {
    let mut out = match map {
        Some(map) => {
            let diags: Vec<Diagnostic> =
                report.diagnostics.iter().map(frontend_diagnostic).collect();
            frontend::render_diagnostics_in(map, &diags)
        }
        None => report
            .diagnostics
            .iter()
            .map(|d| {
                let level = match d.severity() {
                    passes::Severity::Error => "error",
                    passes::Severity::Warning => "warning",
                };
                format!("{level}: {} (in @{})\n", d.message(), d.function)
            })
            .collect(),
    };
    let t = &report.transcript;
    for (topic, text) in [
        ("ip-msp", &t.dump_ip_msp),
        ("memspace", &t.explain_memspace),
        ("restrict", &t.dump_restrict),
    ] {
        for line in text.lines() {
            out.push_str(&format!("{topic}: {}\n", readable_text(line)));
        }
    }
    let position = |span: midend::ir::SourceSpan| match map {
        Some(map) if !span.is_none() => Some(map.position_text(span.start)),
        _ => None,
    };
    for note in &report.notes {
        let at = position(note.span).map(|p| p + ": ").unwrap_or_default();
        let mut line = format!(
            "explain-nc: {at}@{} `{}`: {}",
            readable(&note.function),
            note.what,
            readable_text(&note.message())
        );
        if let Some(culprit) = note.culprit_span().and_then(position) {
            line.push_str(&format!(" at {culprit}"));
        }
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// A pass's diagnostic as the frontend renders it: its span and labels,
/// and a note naming the function (functions by their readable names:
/// `bump(int*)`, not the PTX's `_Z4bumpPi`).
fn frontend_diagnostic(d: &passes::Diagnostic) -> Diagnostic {
    let span = frontend::Span::new(d.span.start, d.span.end);
    let message = readable_text(&d.message());
    let code = d.code();
    let diag = match d.severity() {
        passes::Severity::Error => Diagnostic::error(span, code, message),
        passes::Severity::Warning => Diagnostic::warning(span, code, message),
    };
    let diag = d
        .labels
        .iter()
        .filter(|(s, _)| !s.is_none())
        .fold(diag, |diag, (s, label)| {
            let text = readable_text(&label.to_string());
            diag.with_label(frontend::Span::new(s.start, s.end), text)
        })
        .with_note(format!("in function `{}`", readable(&d.function)));
    d.notes.iter().fold(diag, |diag, note| {
        diag.with_note(readable_text(&note.to_string()))
    })
}

/// Runs `pipeline` over a module made from the files of `source` (`None`
/// for IR without its C source) and renders what the passes report
/// ([`render_report_in`]). An error among the diagnostics fails, with the
/// rendered report as the error; otherwise the rendered report (warnings,
/// transcripts) is returned, for stderr.
pub fn optimize(
    module: &mut Module,
    pipeline: &Pipeline,
    source: Option<&SourceMap>,
) -> Result<String, CompileError> {
    let report = pipeline.run(module)?;
    let rendered = render_report_in(&report, source);
    if !report.has_errors() {
        return Ok(rendered);
    }
    let diagnostics = match source {
        Some(map) => {
            let diags: Vec<Diagnostic> =
                report.diagnostics.iter().map(frontend_diagnostic).collect();
            diagnostic_records(map, &diags)
        }
        None => Vec::new(),
    };
    Err(CompileError {
        rendered,
        diagnostics,
    })
}

impl From<PassError> for CompileError {
    /// A pass list that does not parse is the user's error; invalid IR
    /// after a pass is the compiler's, and says so.
    fn from(e: PassError) -> Self {
        let rendered = if e.is_internal() {
            e.to_string()
        } else {
            format!("error: {e}\n")
        };
        CompileError::unlocated(rendered)
    }
}

/// How a failed stage's diagnostics become a [`CompileError`]: the
/// `-w`/`-Werror` mode applied (it leaves errors as they are), then rendered
/// with snippets of the files of `map` (none when its text is empty).
fn diagnostics_failure(
    map: &SourceMap,
    mode: WarningMode,
) -> impl Fn(Vec<Diagnostic>) -> CompileError + Copy + '_ {
    move |diags| {
        let diags = apply_warning_mode(diags, mode);
        CompileError {
            rendered: frontend::render_diagnostics_in(map, &diags),
            diagnostics: diagnostic_records(map, &diags),
        }
    }
}

/// A kernel of a program, as `--list-kernels` shows it and
/// `kernelc run --kernel` finds it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelName {
    /// The name in the PTX: the Itanium C++ ABI name nvcc gives it
    /// (`_Z9vectorAddPKfS0_Pfi`), or the source name under `extern "C"`.
    pub ptx: String,
    /// The name the source gives it (`vectorAdd`).
    pub plain: String,
    /// Where it is defined: `FILE:line:col`.
    pub at: String,
}

impl KernelName {
    /// A kernel known only by its PTX name (of a `.ptx` or `.kir` file).
    pub fn from_ptx(ptx: &str, at: String) -> KernelName {
        KernelName {
            ptx: ptx.to_string(),
            plain: stdx::itanium::plain_name(ptx).to_string(),
            at,
        }
    }

    /// The readable form: `vectorAdd(const float*, const float*, float*, int)`,
    /// or the name of an `extern "C"` kernel.
    pub fn readable(&self) -> String {
        stdx::itanium::readable(&self.ptx)
    }
}

/// The kernels of a source file, in source order (`--list-kernels`): the
/// frontend's checks, without lowering or optimizing.
pub fn list_kernels(
    file_name: &str,
    source: &str,
    opts: &CompileOptions,
    loader: &dyn FileLoader,
) -> Result<Vec<KernelName>, CompileError> {
    let mut fe_opts = frontend_options(opts.target.sm(), &opts.defines)
        .with_relocatable(opts.relocatable)
        .with_file_name(file_name);
    fe_opts.unit_path = unit_path(file_name);
    fe_opts.include_dirs = opts.include_dirs.clone();
    fe_opts.pre_includes = opts.pre_includes.clone();
    fe_opts.std = opts.std;
    let mut map = SourceMap::new(file_name, source);
    let kernels = kernels_of(&mut map, &fe_opts, loader);
    kernels.map_err(diagnostics_failure(&map, opts.warnings))
}

/// A function's name as the source spells it: the checker names the
/// second and later overloads of a name with their parameter types
/// (`over(float *)`), which the source does not.
fn source_name(checked_name: &str) -> &str {
    checked_name
        .split_once('(')
        .map_or(checked_name, |(name, _)| name)
}

/// The kernels of the main file of `map` and what it includes, checked
/// with the frontend's options `fe`.
pub fn kernels_of(
    map: &mut SourceMap,
    fe: &frontend::Options,
    loader: &dyn FileLoader,
) -> Result<Vec<KernelName>, Vec<Diagnostic>> {
    let (program, _) = frontend::check_files(map, fe, loader)?;
    Ok(kernel_signatures(&program, map)
        .into_iter()
        .map(|k| k.name)
        .collect())
}

/// [`compile_source`], also returning the side messages. `#include` finds
/// kernelc's own headers only; [`compile_with_loader`] reads files.
pub fn compile_source_with_messages(
    file_name: &str,
    source: &str,
    opts: &CompileOptions,
) -> Result<Compiled, CompileError> {
    compile_with_loader(file_name, source, opts, &NoFiles)
}

/// [`compile_source_with_messages`], reading the files `#include` names
/// (from the folders of `opts.include_dirs`, ...) through `loader`.
pub fn compile_with_loader(
    file_name: &str,
    source: &str,
    opts: &CompileOptions,
    loader: &dyn FileLoader,
) -> Result<Compiled, CompileError> {
    match lower_stages(file_name, source, opts, loader)? {
        Frontend::Done(compiled) => Ok(compiled),
        Frontend::Lowered(lowered) => {
            // Warnings come first among the side messages.
            let warning_text = frontend::render_diagnostics_in(&lowered.map, &lowered.warnings);
            compile_module_with_messages(&lowered.map, lowered.module, opts, warning_text)
        }
    }
}

/// A source taken through the frontend: its IR as lowered (before any
/// pass), the files it was read from, the warnings (`-w`/`-Werror`
/// applied) and its kernels' signatures. The rest of a compilation, or a
/// run, starts from it.
pub struct Lowered {
    pub module: Module,
    pub map: SourceMap,
    pub warnings: Vec<Diagnostic>,
    pub kernels: Vec<KernelSignature>,
}

/// A kernel's names and its parameters as the source declares them.
#[derive(Clone, Debug)]
pub struct KernelSignature {
    pub name: KernelName,
    pub params: Vec<frontend::typed::Param>,
}

/// [`compile_with_loader`]'s frontend half: the source checked and
/// lowered to IR. `opts.emit` is not consulted: the result is always IR.
pub fn lower_with_loader(
    file_name: &str,
    source: &str,
    opts: &CompileOptions,
    loader: &dyn FileLoader,
) -> Result<Lowered, CompileError> {
    let ir_opts = CompileOptions {
        emit: Emit::Ir,
        ..opts.clone()
    };
    match lower_stages(file_name, source, &ir_opts, loader)? {
        Frontend::Lowered(lowered) => Ok(lowered),
        Frontend::Done(_) => unreachable!("only --emit tokens and ast stop before lowering"),
    }
}

/// The frontend's stages for `opts.emit`: the tokens' or syntax tree's
/// text, or the lowered program.
fn lower_stages(
    file_name: &str,
    source: &str,
    opts: &CompileOptions,
    loader: &dyn FileLoader,
) -> Result<Frontend, CompileError> {
    // `__FILE__` is the path as given, as nvcc spells it.
    let mut fe_opts = with_float_options(
        frontend_options(opts.target.sm(), &opts.defines),
        opts.float,
    )
    .with_relocatable(opts.relocatable)
    .with_file_name(file_name);
    fe_opts.unit_path = unit_path(file_name);
    fe_opts.error_limit = opts.error_limit;
    fe_opts.include_dirs = opts.include_dirs.clone();
    fe_opts.pre_includes = opts.pre_includes.clone();
    fe_opts.std = opts.std;
    let mut map = SourceMap::new(file_name, source);
    let result = frontend_stages(&mut map, &fe_opts, opts, loader);
    let fail = diagnostics_failure(&map, opts.warnings);
    let (program, warnings) = match result.map_err(fail)? {
        Checked::Done(compiled) => return Ok(Frontend::Done(compiled)),
        Checked::Program(program, warnings) => (program, warnings),
    };
    let warnings = apply_warning_mode(warnings, opts.warnings);
    if warnings.iter().any(Diagnostic::is_error) {
        return Err(fail(warnings));
    }
    let module = frontend::lower(&program).map_err(fail)?;
    check_ir(&module, "after lowering")?;
    let kernels = kernel_signatures(&program, &map);
    Ok(Frontend::Lowered(Lowered {
        module,
        map,
        warnings,
        kernels,
    }))
}

/// The kernels of a checked program, in source order, with their parameters.
fn kernel_signatures(program: &frontend::typed::Program, map: &SourceMap) -> Vec<KernelSignature> {
    program
        .functions
        .iter()
        .filter(|f| f.is_kernel)
        .map(|f| KernelSignature {
            name: KernelName {
                ptx: f.link_name.clone(),
                plain: source_name(&f.name).to_string(),
                at: map.position_text(f.span.start),
            },
            params: f.params.clone(),
        })
        .collect()
}

/// What the frontend's stages gave: the output of `--emit tokens|ast`, or
/// the checked program and its warnings.
enum Checked {
    Done(Compiled),
    Program(frontend::typed::Program, Vec<Diagnostic>),
}

/// What the frontend and lowering gave: the output of `--emit
/// tokens|ast`, or the lowered program.
enum Frontend {
    Done(Compiled),
    Lowered(Lowered),
}

/// The frontend up to the typed program (or the `--emit tokens|ast` stop),
/// reading includes through `loader` into `map`.
fn frontend_stages(
    map: &mut SourceMap,
    fe_opts: &frontend::Options,
    opts: &CompileOptions,
    loader: &dyn FileLoader,
) -> Result<Checked, Vec<Diagnostic>> {
    match opts.emit {
        Emit::Tokens => {
            let tokens = frontend::lex_files(map, fe_opts, loader)?;
            Ok(Checked::Done(Compiled {
                output: frontend::dump_tokens(&tokens),
                ..Compiled::default()
            }))
        }
        Emit::Ast => {
            let tu = frontend::parse_files(map, fe_opts, loader)?;
            Ok(Checked::Done(Compiled {
                output: frontend::dump_ast(&tu),
                ..Compiled::default()
            }))
        }
        _ => {
            let (program, warnings) = frontend::check_files(map, fe_opts, loader)?;
            Ok(Checked::Program(program, warnings))
        }
    }
}

/// Compiles IR text (a `.kir` file) as `compile_source_with_messages`
/// compiles C: verified, then the same passes and backend. Source spans in
/// IR text point into a C file that is not at hand, so diagnostics here come
/// without snippets.
pub fn compile_ir_with_messages(
    file_name: &str,
    text: &str,
    opts: &CompileOptions,
) -> Result<Compiled, CompileError> {
    if matches!(opts.emit, Emit::Tokens | Emit::Ast) {
        return Err(CompileError::unlocated(format!(
            "error: `{file_name}` is IR: `--emit tokens` and `--emit ast` need C source\n"
        )));
    }
    let module = midend::text::parse_module(text)
        .map_err(|e| CompileError::unlocated(format!("error: {file_name}:{e}\n")))?;
    if let Err(errors) = midend::verifier::verify_module(&module) {
        let mut rendered = format!("error: `{file_name}` is not valid IR\n");
        for (func, errs) in errors {
            rendered.push_str(&errs.annotate(&module.functions[func], Some(&module)));
        }
        return Err(CompileError::unlocated(rendered));
    }
    compile_module_with_messages(&SourceMap::new(file_name, ""), module, opts, String::new())
}

/// The shared second half: the `-O` pipeline and the backend, for a module
/// made from the files of `map` (an empty text when there is no C source
/// to point into). `warnings` (already rendered) lead the side messages.
fn compile_module_with_messages(
    map: &SourceMap,
    mut module: Module,
    opts: &CompileOptions,
    warning_text: String,
) -> Result<Compiled, CompileError> {
    let print = PrintOptions {
        spans: opts.ir_spans,
    };
    if opts.emit == Emit::Ir {
        return Ok(Compiled {
            output: write_module(&module, print),
            messages: warning_text,
        });
    }
    let report_text =
        optimize(&mut module, &pipeline_for(opts), Some(map)).map_err(|e| CompileError {
            rendered: warning_text.clone() + &e.rendered,
            ..e
        })?;
    let messages = warning_text + &report_text;
    if opts.emit == Emit::IrOpt {
        return Ok(Compiled {
            output: write_module(&module, print),
            messages,
        });
    }
    if opts.emit == Emit::Dot {
        return Ok(Compiled {
            output: midend::text::write_module_dot(&module),
            messages,
        });
    }
    if opts.emit == Emit::Mir {
        let output = backend_nvptx::compile_module_mir(&module, &backend_options(opts, map))
            .map_err(backend_failure(map, opts))?;
        return Ok(Compiled { output, messages });
    }
    let output = ptx_of(map, &module, opts)?;
    Ok(Compiled { output, messages })
}

/// The PTX of an optimized module made from the files of `map`.
pub fn ptx_of(
    map: &SourceMap,
    module: &Module,
    opts: &CompileOptions,
) -> Result<String, CompileError> {
    let output = backend_nvptx::compile_module(module, &backend_options(opts, map))
        .map_err(backend_failure(map, opts))?;
    check_ptx(&output)?;
    Ok(output)
}

/// The backend's options for a compilation of the files of `map`.
fn backend_options(opts: &CompileOptions, map: &SourceMap) -> backend_nvptx::Options {
    backend_nvptx::Options {
        target: opts.target,
        ptx_version: opts.ptx_version,
        regalloc: opts.regalloc,
        producer: Some(opts.producer()),
        threads: opts.threads,
        contract: fmad_in_force(opts),
        line_info: opts
            .line_info
            .then(|| source_lines(map, opts.source_dir.as_deref())),
    }
}

/// The files of `map` as `-lineinfo`'s `.file` lines name them: a relative
/// name joined to `dir` as text, `dir/name` (nvcc writes the working
/// directory and the path as given, `..` and `.` kept); an absolute name,
/// or a name that is no path (`<source>.cu`, kernelc's own
/// `<kernelc>/curand_kernel.h`), as it is.
pub fn source_lines(map: &SourceMap, dir: Option<&str>) -> backend_nvptx::lineinfo::SourceLines {
    let mut lines = backend_nvptx::lineinfo::SourceLines::new();
    for file in map.files() {
        let name = file.name();
        let path = match dir {
            Some(dir) if !name.starts_with('/') && !name.starts_with('<') => {
                format!("{}/{name}", dir.trim_end_matches('/'))
            }
            _ => name.to_string(),
        };
        lines.add_file(&path, file.base(), file.text());
    }
    lines
}

/// How a backend error becomes a [`CompileError`]: one at an instruction
/// with a span (e.g. an operation the target lacks) points at the user's
/// code, like any other diagnostic.
fn backend_failure<'a>(
    map: &'a SourceMap,
    opts: &CompileOptions,
) -> impl Fn(backend_nvptx::BackendError) -> CompileError + 'a {
    let fail = diagnostics_failure(map, opts.warnings);
    move |e| match e.span() {
        Some(span) => fail(vec![Diagnostic::error(
            frontend::Span::new(span.start, span.end),
            e.code(),
            readable_text(&e.to_string()),
        )]),
        None => CompileError::unlocated(format!("error: {}\n", readable_text(&e.to_string()))),
    }
}

/// Compiles to PTX and wraps it in an x86-64 ELF object with the symbols
/// `<name>_ptx` and `<name>_ptx_len`, where `name` is `symbol_stem` made a
/// C identifier (the CLI passes the input file's stem). Side messages are
/// returned with it.
pub fn compile_object(
    file_name: &str,
    source: &str,
    symbol_stem: &str,
    opts: &CompileOptions,
    loader: &dyn FileLoader,
) -> Result<(Vec<u8>, String), CompileError> {
    let ptx_opts = CompileOptions {
        emit: Emit::Ptx,
        ..opts.clone()
    };
    let compiled = compile_with_loader(file_name, source, &ptx_opts, loader)?;
    let name = backend_nvptx::obj::c_identifier(symbol_stem);
    let bytes = backend_nvptx::obj::write_object(&name, &compiled.output)
        .map_err(|e| CompileError::unlocated(format!("error: {e}\n")))?;
    Ok((bytes, compiled.messages))
}

/// In debug and test builds, every PTX kernelc emits is judged by
/// ptx-validate, so an instruction-selection bug shows up at once, at the
/// compile that made it, without needing ptxas.
fn check_ptx(ptx: &str) -> Result<(), CompileError> {
    if !cfg!(debug_assertions) {
        return Ok(());
    }
    let report = ptx_validate::validate(ptx);
    if report.ok() || first_error_in_inline_ptx(&report, ptx) {
        return Ok(());
    }
    Err(CompileError::unlocated(format!(
        "internal compiler error: the PTX kernelc produced does not validate\n{}",
        report.rendered("<output>", ptx)
    )))
}

/// Whether the first error of `report` lies at or after the first inline
/// PTX of `ptx`. Inline PTX is the user's text, copied as written, as nvcc
/// copies it; ptxas judges it (a syntax error in it may even end the
/// function early), so an error from there on is not kernelc's to report.
fn first_error_in_inline_ptx(report: &ptx_validate::Report, ptx: &str) -> bool {
    let Some(begin) = ptx.lines().position(|l| l.trim() == "// begin inline asm") else {
        return false;
    };
    let first_error = report
        .diags
        .iter()
        .filter(|d| d.severity == ptx_validate::Severity::Error)
        .map(|d| d.pos.line as usize)
        .min();
    // `begin` counts from 0 and `line` from 1: the template starts on the
    // marker's next line.
    first_error.is_some_and(|line| line > begin)
}

/// The canonical path of the source file `file_name`, when it names one:
/// nvcc names the file's anonymous namespace after it
/// (`frontend::Options::unit_path`).
pub fn unit_path(file_name: &str) -> Option<String> {
    let path = std::fs::canonicalize(file_name).ok()?;
    path.to_str().map(str::to_string)
}

/// The frontend's options for a target: `__CUDA_ARCH__` as nvcc sets it for
/// `-arch=sm_XY` (`XY0`), then the user's `-D`s, so an explicit
/// `-D __CUDA_ARCH__=...` still wins.
pub fn frontend_options(sm: u32, defines: &[(String, Option<String>)]) -> frontend::Options {
    let mut fe = frontend::Options::default().with_cuda_arch(sm);
    fe.defines.extend(defines.iter().cloned());
    fe.system_include_dirs = crate::files::system_include_dirs().to_vec();
    fe
}

/// `fe` with the floating-point options in force (after `--use_fast_math`'s
/// implications). `kernelc run` uses [`frontend_options`] alone, so it runs
/// with nvcc's default floating-point options.
pub fn with_float_options(fe: frontend::Options, float: FloatOptions) -> frontend::Options {
    let f = float.effective();
    frontend::Options {
        ftz: f.ftz,
        prec_div: f.prec_div,
        prec_sqrt: f.prec_sqrt,
        fast_math: f.fast_math,
        ..fe
    }
}

/// Whether the verifier runs after every pass, rather than once after the
/// whole pipeline: always in debug builds (so the test suite catches the
/// pass that broke an invariant), and in release builds when the
/// environment sets `KERNELC_VERIFY_EACH=1`. In a release build the
/// verifier after each of the ~20 passes was a third of the compile time.
pub fn verify_each_pass() -> bool {
    cfg!(debug_assertions) || std::env::var_os("KERNELC_VERIFY_EACH").is_some_and(|v| v == "1")
}

/// Verifies the module. A failure here is a compiler bug, reported with the
/// offending function printed and annotated.
fn check_ir(module: &Module, when: &str) -> Result<(), CompileError> {
    match midend::verifier::verify_module(module) {
        Ok(()) => Ok(()),
        Err(errors) => {
            let mut rendered = format!("internal compiler error: invalid IR {when}\n");
            for (func, errs) in errors {
                rendered.push_str(&errs.annotate(&module.functions[func], Some(module)));
            }
            Err(CompileError::unlocated(rendered))
        }
    }
}
