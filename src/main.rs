//! The `kernelc` command line, in nvcc's habits:
//!
//! ```text
//! kernelc FILE.cu [-o OUT.ptx] [-arch=sm_XX | --gpu-architecture=sm_XX] [-O0..-O3]
//!                 [--emit tokens|ast|ir|ir-opt|dot|ptx|mir|obj] [-D NAME[=VAL]] [--ptx-version X.Y]
//!                 [--ir-spans] [--fmad=B] [-ftz=B] [-prec-div=B] [-prec-sqrt=B] [--use_fast_math]
//!                 [--stats] [-rdc=B | --relocatable-device-code=B] [-lineinfo] [source flags]
//! kernelc --list-kernels FILE.cu [-D NAME[=VAL]] [-rdc=B]
//!                 [--regalloc=virtual|regalloc2] [--memspace=on|off] [memory-space knobs]
//!                 [restrict knobs]
//! kernelc opt FILE.kir [--passes a,b] [--print-after-all] [--ir-spans] [-o OUT]
//!                      [memory-space knobs]
//! kernelc run FILE.cu|FILE.kir|FILE.ptx --kernel NAME --grid X[,Y[,Z]] --block X[,Y[,Z]]
//!             [--shared-bytes N] [-O0..-O3] [--engine interp|emu|gpu] [--out DIR]
//!             [--spec FILE.run] [--max-steps N] [--time N] [--racecheck]
//!             [float options] [source flags] [-w] [-Werror] ARG...
//! kernelc validate FILE.ptx
//! kernelc reduce FILE.cu --until "<shell test>" [-o OUT] [--timeout SECS] [--max-tests N]
//!
//! memory-space knobs: --memspace-conservative, --clone-budget N,
//!   --param-always-point-to-global=true|false, --track-indir-load,
//!   --track-int2ptr, --memspace-assume-global (unsafe), --dump-ip-msp,
//!   --explain-memspace, --memspace-verbose, -Wgeneric
//! source flags: -I DIR (-IDIR, --include-path DIR), -include FILE (--pre-include),
//!   -std=c++NN, --extended-lambda (--expt-extended-lambda), --expt-relaxed-constexpr,
//!   -Xcompiler OPTS (--compiler-options OPTS)
//! restrict knobs: --process-restrict=0|1, --apply-multi-level-restrict,
//!   --allow-restrict-in-struct, --dump-restrict, --explain-nc
//! ```
//!
//! Output goes to stdout unless `-o` is given (`-o -` is stdout too); the
//! output file is written atomically, through symbolic links and keeping
//! its mode ([`kernelc::output`]), so a failed compilation never leaves a
//! partial file. File names may be any bytes; every other argument must be
//! UTF-8. Every user error, a bad option included, exits with code 1 (as
//! nvcc's do); `--help` and `--version` exit with 0; an internal compiler
//! error (a bug) exits with 101.

mod reduce;

use clap::{Parser, ValueEnum};
use kernelc::backend_nvptx::Target;
use kernelc::cli::{normalize_args, source_defines, CompileArgs, MemspaceArgs, SourceArgs};
use kernelc::driver::{self, Emit};
use kernelc::files::FsLoader;
use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Read IR text, run passes over it, and print the IR (the course tool).
#[derive(Parser, Debug)]
#[command(name = "kernelc opt")]
struct OptArgs {
    /// The IR file (.kir).
    input: PathBuf,
    /// Comma-separated pass names, run in order (default: the -O3 pipeline).
    #[arg(long, value_delimiter = ',')]
    passes: Option<Vec<String>>,
    /// Print the IR after every pass, not only at the end.
    #[arg(long)]
    print_after_all: bool,
    /// Show each instruction's source span (`!start..end`).
    #[arg(long)]
    ir_spans: bool,
    /// Write the output here instead of stdout (`-` is stdout).
    #[arg(short = 'o', value_name = "OUT")]
    output: Option<PathBuf>,
    #[command(flatten)]
    ms: MemspaceArgs,
}

/// Shrink a failing input: delete lines, bracket groups and tokens while the
/// shell test keeps succeeding (exit status 0).
#[derive(Parser, Debug)]
#[command(name = "kernelc reduce")]
struct ReduceArgs {
    /// The input to reduce (any text; usually a .cu kernel).
    input: PathBuf,
    /// The test, run as `sh -c TEST sh CANDIDATE`: the candidate file is `$1`
    /// (and `{}` in TEST). It must succeed on the original input.
    #[arg(long, value_name = "SHELL TEST")]
    until: String,
    /// Where candidates go and the result stays (default: FILE.reduced.cu).
    #[arg(short = 'o', value_name = "OUT")]
    output: Option<PathBuf>,
    /// Seconds one test may run; a slower one counts as failing.
    #[arg(long, value_name = "SECS", default_value_t = 30)]
    timeout: u64,
    /// Stop after this many tests, keeping the best result so far.
    #[arg(long, value_name = "N", default_value_t = 10_000)]
    max_tests: usize,
}

#[derive(Copy, Clone, Debug, ValueEnum)]
enum EngineArg {
    /// The IR interpreter.
    Interp,
    /// The PTX emulator: runs the backend's PTX (or a .ptx file as written).
    Emu,
    /// A real GPU through the CUDA driver (the backend's PTX, or a .ptx file).
    Gpu,
}

/// Run a kernel without a GPU: compile it, run it in the IR interpreter (or
/// its PTX in the PTX emulator, `--engine emu`), write each buffer to DIR/argK.bin and print a summary per buffer.
#[derive(Parser, Debug)]
#[command(
    name = "kernelc run",
    after_help = "\
ARG is a scalar `i32:5`, `u32:7`, `i64:-3`, `u64:9`, `f32:2.5`, `f64:1e-3`, or a buffer\n\
`T[]:@file.bin`, `T[]:zeros:N`, `T[]:iota:N`, `T[]:rand:N:SEED` with T in\n\
i8 u8 i16 u16 i32 u32 i64 u64 f16 f32 f64, or, for `--engine gpu`, a tensor map\n\
`tmap:T:ROWSxCOLS:BOXROWSxBOXCOLS:SOURCE` (SOURCE as for a buffer), or a texture or\n\
surface object `tex:FORMAT:EXTENT[:OPTIONS]:SOURCE` / `surf:...` (e.g.\n\
`tex:f32:64x32:linear,border:rand:1`). See docs/running.md."
)]
struct RunArgs {
    /// The source (.cu) or IR (.kir) file; a .ptx file with `--engine emu` or `gpu`.
    input: PathBuf,
    /// The kernel to launch.
    #[arg(long)]
    kernel: String,
    /// Blocks per grid: X[,Y[,Z]].
    #[arg(long, value_name = "X[,Y[,Z]]")]
    grid: String,
    /// Threads per block: X[,Y[,Z]].
    #[arg(long, value_name = "X[,Y[,Z]]")]
    block: String,
    /// Bytes of dynamic shared memory (`extern __shared__`).
    #[arg(long, value_name = "N", default_value_t = 0)]
    shared_bytes: u32,
    /// Target GPU (checked; the interpreter itself is target-independent).
    #[arg(
        long = "gpu-architecture",
        value_name = "sm_XX",
        default_value = "sm_80"
    )]
    arch: String,
    /// Optimization level, 0 to 3 (default: 3 for .cu, 0 for .kir).
    #[arg(short = 'O', value_name = "N",
          value_parser = clap::value_parser!(u8).range(0..=3))]
    opt_level: Option<u8>,
    /// Define a preprocessor macro: `-D NAME` or `-D NAME=VALUE`.
    #[arg(short = 'D', value_name = "NAME[=VAL]")]
    defines: Vec<String>,
    /// What runs the kernel (default: `interp`, or `emu` for a `.ptx` file,
    /// which the interpreter cannot read).
    #[arg(long, value_enum)]
    engine: Option<EngineArg>,
    /// Contract `a * b + c` into one fused multiply-add, as `kernelc` does
    /// when compiling (default true).
    #[arg(long, value_name = "true|false",
          action = clap::ArgAction::Set,
          value_parser = clap::builder::BoolishValueParser::new())]
    fmad: Option<bool>,
    /// Flush `float` denormals to zero, as when compiling.
    #[arg(long, value_name = "true|false",
          action = clap::ArgAction::Set,
          value_parser = clap::builder::BoolishValueParser::new())]
    ftz: Option<bool>,
    /// IEEE-rounded `float` division, as when compiling.
    #[arg(long = "prec-div", value_name = "true|false",
          action = clap::ArgAction::Set,
          value_parser = clap::builder::BoolishValueParser::new())]
    prec_div: Option<bool>,
    /// IEEE-rounded `sqrtf`, as when compiling.
    #[arg(long = "prec-sqrt", value_name = "true|false",
          action = clap::ArgAction::Set,
          value_parser = clap::builder::BoolishValueParser::new())]
    prec_sqrt: Option<bool>,
    /// Fast math, as when compiling (the float options given explicitly win).
    #[arg(long = "use_fast_math")]
    use_fast_math: bool,
    /// Print no warnings.
    #[arg(short = 'w')]
    no_warnings: bool,
    /// Make every warning an error.
    #[arg(long = "Werror")]
    werror: bool,
    /// With `--engine gpu`: time N more launches with CUDA events and print the median.
    #[arg(long, value_name = "N", default_value_t = 0)]
    time: u32,
    /// With `--engine interp`: report shared-memory races between barriers.
    #[arg(long)]
    racecheck: bool,
    /// Leave this pass out of the -O pipeline (repeatable).
    #[arg(long = "disable-pass", value_name = "PASS")]
    disable_pass: Vec<String>,
    /// Accept `__restrict__` pointers inside by-value structs (as when compiling).
    #[arg(long = "allow-restrict-in-struct")]
    allow_restrict_in_struct: bool,
    /// Write each buffer argument K to DIR/argK.bin after the run.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// The most instructions one thread may execute (catches infinite
    /// loops), and, when given, the whole launch [default: 10000000 per
    /// thread, the launch unbounded].
    #[arg(long, value_name = "N")]
    max_steps: Option<u64>,
    /// Stop after N errors in the source (0: no limit; also `-ferror-limit=N`).
    #[arg(long, value_name = "N", default_value_t = kernelc::frontend::DEFAULT_ERROR_LIMIT)]
    error_limit: usize,
    #[command(flatten)]
    src: SourceArgs,
    /// Kernel arguments, in parameter order.
    #[arg(value_name = "ARG")]
    args: Vec<String>,
}

/// Why `kernelc` stops short of success.
enum Stop {
    /// A user error, already worded (`error: ...`): exit 1.
    Error(String),
    /// Clap's verdict on the options: an error (exit 1, as nvcc's option
    /// errors) or the `--help`/`--version` text (exit 0).
    Usage(clap::Error),
}

impl From<String> for Stop {
    fn from(message: String) -> Self {
        Stop::Error(message)
    }
}

/// Parses `args` (the program name first) into `T`. A non-UTF-8 argument
/// where text is expected is named in the error, shown lossily.
fn parse<T: Parser>(args: Vec<OsString>) -> Result<T, Stop> {
    T::try_parse_from(&args).map_err(|e| {
        if e.kind() == clap::error::ErrorKind::InvalidUtf8 {
            Stop::Error(not_utf8_error::<T>(&args))
        } else {
            Stop::Usage(e)
        }
    })
}

/// Clap says some argument that must be text is not UTF-8, but not which:
/// each non-UTF-8 argument in turn is kept while the others are made
/// UTF-8 (lossily), and the first whose presence alone still fails is the
/// culprit (a file name is not: paths take any bytes).
fn not_utf8_error<T: Parser>(args: &[OsString]) -> String {
    let bad: Vec<usize> = (0..args.len())
        .filter(|&i| args[i].to_str().is_none())
        .collect();
    let only = |keep: usize| -> Vec<OsString> {
        let lossy = |(i, a): (usize, &OsString)| match i == keep {
            true => a.clone(),
            false => OsString::from(a.to_string_lossy().into_owned()),
        };
        args.iter().enumerate().map(lossy).collect()
    };
    let culprit = bad
        .iter()
        .copied()
        .find(|&k| {
            matches!(T::try_parse_from(only(k)),
                     Err(e) if e.kind() == clap::error::ErrorKind::InvalidUtf8)
        })
        .or(bad.first().copied())
        .unwrap_or(0);
    format!(
        "error: argument {:?} is not valid UTF-8: only file names may be any bytes",
        args[culprit]
    )
}

/// `kernelc SUB ARGS...` as the arguments of `SUB`'s own parser.
fn subcommand_args(args: Vec<OsString>, name: &str) -> Vec<OsString> {
    let mut program = args.first().cloned().unwrap_or_else(|| "kernelc".into());
    program.push(format!(" {name}"));
    std::iter::once(program)
        .chain(args.into_iter().skip(2))
        .collect()
}

/// A panic is a compiler bug, never the user's fault: say so plainly, and
/// exit with 101 (Rust's panic code) so scripts can tell it from a user error.
fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        eprintln!("kernelc: internal compiler error: {info}");
        eprintln!(
            "kernelc: this is a bug in kernelc; please report it with the input that caused it"
        );
    }));
}

fn main() -> ExitCode {
    install_panic_hook();
    match dispatch(normalize_args(std::env::args_os())) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Stop::Usage(e)) => {
            let _ = e.print();
            // `--help` and `--version` are not errors.
            ExitCode::from(if e.use_stderr() { 1 } else { 0 })
        }
        Err(Stop::Error(message)) => {
            eprint!("{message}");
            if !message.ends_with('\n') {
                eprintln!();
            }
            ExitCode::from(1)
        }
    }
}

/// Runs the subcommand `args` names (compiling when none does).
fn dispatch(args: Vec<OsString>) -> Result<(), Stop> {
    match args.get(1).and_then(|a| a.to_str()) {
        Some("opt") => run_opt(parse(subcommand_args(args, "opt"))?)?,
        Some("run") => run_run(parse(expand_specs(subcommand_args(args, "run"))?)?)?,
        Some("--explain") => explain(args.get(2).map(|a| a.to_string_lossy()).as_deref())?,
        Some("reduce") => run_reduce(parse(subcommand_args(args, "reduce"))?)?,
        Some("validate") => run_validate(&args[2..])?,
        _ => run_compile(parse(args)?)?,
    }
    Ok(())
}

/// `kernelc --explain CODE`: what a diagnostic code means, with an example
/// and the fix (the table is `stdx/src/codes.rs`).
fn explain(code: Option<&str>) -> Result<(), String> {
    let Some(code) = code else {
        return Err("error: usage: kernelc --explain CODE (e.g. E0001)".into());
    };
    match kernelc::frontend::codes::explain(code) {
        Some(text) => {
            print!("{text}");
            Ok(())
        }
        None => Err(format!(
            "error: `{code}` is not a kernelc diagnostic code (see docs/diagnostics.md)"
        )),
    }
}

/// `kernelc validate FILE.ptx`: judges PTX with ptx-validate (no ptxas
/// needed). Diagnostics go to stderr rendered with their source lines, the
/// module's minimum `.version`/`.target` to stdout; invalid PTX exits 1.
fn run_validate(files: &[OsString]) -> Result<(), String> {
    if files.is_empty() {
        return Err("error: usage: kernelc validate FILE.ptx...".into());
    }
    let mut failed = String::new();
    for file in files {
        let src = read_input(Path::new(file))?;
        let f = Path::new(file).display().to_string();
        let report = ptx_validate::validate(&src);
        eprint!("{}", report.rendered(&f, &src));
        println!("{f}: {}", report.minimum_line());
        if !report.ok() {
            let n = report.diags.len();
            failed.push_str(&format!(
                "error: `{f}` is not valid PTX ({n} diagnostic(s))\n"
            ));
        }
    }
    if failed.is_empty() {
        Ok(())
    } else {
        Err(failed)
    }
}

/// `kernelc reduce`: see `reduce.rs`. Prints the size before and after.
fn run_reduce(args: ReduceArgs) -> Result<(), String> {
    let source = read_input(&args.input)?;
    let output = args
        .output
        .unwrap_or_else(|| reduce::default_output(&args.input));
    if output == args.input {
        return Err("error: the output must differ from the input (which stays as it is)".into());
    }
    let opts = reduce::ReduceOptions {
        until: args.until,
        output: output.clone(),
        timeout: std::time::Duration::from_secs(args.timeout),
        max_tests: args.max_tests,
    };
    let r = reduce::reduce(&source, &opts)?;
    eprintln!(
        "kernelc reduce: {} -> {} bytes in {} tests; wrote {}",
        source.len(),
        r.text.len(),
        r.tests,
        output.display()
    );
    Ok(())
}

fn read_input(path: &Path) -> Result<String, String> {
    std::fs::read_to_string(path)
        .map_err(|e| format!("error: cannot read `{}`: {e}", path.display()))
}

fn run_compile(args: CompileArgs) -> Result<(), String> {
    let opts = args.options()?;
    if args.stats && opts.emit != Emit::Ptx {
        return Err("error: `--stats` needs PTX output (`--emit ptx`, the default)".into());
    }
    let source = read_input(&args.input)?;
    let name = args.input.display().to_string();
    if args.list_kernels {
        let kernels =
            driver::list_kernels(&name, &source, &opts, &FsLoader).map_err(|e| e.rendered)?;
        let text: String = kernels
            .iter()
            .map(|k| format!("{}\t{}\n", k.ptx, k.readable()))
            .collect();
        return write_output(args.output.as_deref(), &text);
    }
    if opts.emit == Emit::Obj {
        // Binary output never goes to a terminal.
        let Some(output) = args.output.as_deref() else {
            return Err("error: `--emit obj` needs an output file (`-o FILE.o`)".into());
        };
        let stem = args
            .input
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let (bytes, messages) = driver::compile_object(&name, &source, &stem, &opts, &FsLoader)
            .map_err(|e| e.rendered)?;
        eprint!("{messages}");
        return write_output_bytes(Some(output), &bytes);
    }
    // `.kir` input is IR text: the same pipeline, minus the frontend.
    let is_ir = args.input.extension().is_some_and(|e| e == "kir");
    let out = if is_ir {
        driver::compile_ir_with_messages(&name, &source, &opts)
    } else {
        driver::compile_with_loader(&name, &source, &opts, &FsLoader)
    }
    .map_err(|e| e.rendered)?;
    eprint!("{}", out.messages);
    write_output(args.output.as_deref(), &out.output)?;
    if args.stats {
        eprint!("{}", kernelc::ptxas::stats(&out.output)?);
    }
    Ok(())
}

fn run_opt(args: OptArgs) -> Result<(), String> {
    if args
        .input
        .extension()
        .is_some_and(|e| e == "cu" || e == "cuh")
    {
        let cu = args.input.display();
        return Err(format!(
            "error: `kernelc opt` reads IR text (.kir), and `{cu}` is CUDA source; \
             compile it to IR first: `kernelc {cu} --emit ir -o FILE.kir`"
        ));
    }
    let text = read_input(&args.input)?;
    let mut module = kernelc::midend::text::parse_module(&text)
        .map_err(|e| format!("error: {}:{e}", args.input.display()))?;
    if let Err(errors) = kernelc::midend::verifier::verify_module(&module) {
        let mut msg = format!("error: `{}` is not valid IR\n", args.input.display());
        for (func, errs) in errors {
            msg.push_str(&errs.annotate(&module.functions[func], Some(&module)));
        }
        return Err(msg);
    }
    let compile = driver::CompileOptions {
        memspace_opts: args.ms.options()?,
        ..driver::CompileOptions::default()
    };
    let pipeline = match &args.passes {
        // `--passes ""` runs no pass: parse, verify and print back.
        Some(list) => {
            let names: Vec<&str> = list
                .iter()
                .map(String::as_str)
                .filter(|name| !name.is_empty())
                .collect();
            kernelc::midend::passes::Pipeline::parse(&names, driver::pass_options(&compile))
                .map_err(|e| driver::CompileError::from(e).rendered)?
        }
        None => driver::pipeline_for(&compile),
    };
    let opts = kernelc::midend::text::PrintOptions {
        spans: args.ir_spans,
    };
    let mut out = String::new();
    let report = if args.print_after_all {
        pipeline.run_observed(&mut module, |name, m| {
            out.push_str(&format!("; after {name}\n"));
            out.push_str(&kernelc::midend::text::write_module(m, opts));
            out.push('\n');
        })
    } else {
        pipeline.run(&mut module)
    }
    .map_err(|e| driver::CompileError::from(e).rendered)?;
    let rendered = driver::render_report(&report, "", None);
    if report.has_errors() {
        return Err(rendered);
    }
    eprint!("{rendered}");
    if !args.print_after_all {
        out = kernelc::midend::text::write_module(&module, opts);
    }
    write_output(args.output.as_deref(), &out)
}

/// Replaces each `--spec FILE` (or `--spec=FILE`) by the words of the run
/// spec FILE, so a spec's options and arguments parse exactly as if typed.
fn expand_specs(args: Vec<OsString>) -> Result<Vec<OsString>, String> {
    let mut out = Vec::new();
    let mut iter = args.into_iter();
    while let Some(arg) = iter.next() {
        let path = if arg == "--spec" {
            iter.next()
                .ok_or_else(|| "error: `--spec` needs a FILE.run".to_string())?
        } else if let Some(p) = arg.to_str().and_then(|a| a.strip_prefix("--spec=")) {
            p.into()
        } else {
            out.push(arg);
            continue;
        };
        let text = read_input(Path::new(&path))?;
        let words = kernelc::run::spec_words(&text)
            .into_iter()
            .map(OsString::from);
        out.extend(normalize_args(words));
    }
    Ok(out)
}

fn run_run(args: RunArgs) -> Result<(), String> {
    let target = Target::parse(&args.arch).map_err(|e| format!("error: {e}"))?;
    let engine = match args.engine {
        Some(EngineArg::Interp) => kernelc::run::Engine::Interp,
        Some(EngineArg::Emu) => kernelc::run::Engine::Emu,
        Some(EngineArg::Gpu) => kernelc::run::Engine::Gpu,
        None if kernelc::run::is_ptx_file(&args.input) => kernelc::run::Engine::Emu,
        None => kernelc::run::Engine::Interp,
    };
    let req = kernelc::run::RunRequest {
        input: args.input,
        kernel: args.kernel,
        grid: kernelc::run::parse_dims(&args.grid, "grid")?,
        block: kernelc::run::parse_dims(&args.block, "block")?,
        shared_bytes: args.shared_bytes,
        opt_level: args.opt_level,
        fmad: args.fmad.unwrap_or(true),
        sm: target.sm(),
        arch: Some(args.arch.clone()),
        defines: source_defines(&args.src, &args.defines)?,
        include_dirs: args.src.include_dirs.clone(),
        pre_includes: args.src.pre_includes.clone(),
        std: args.src.std()?,
        engine,
        max_steps: args.max_steps.unwrap_or(kir_interp::DEFAULT_MAX_STEPS),
        max_launch_steps: args.max_steps.unwrap_or(u64::MAX),
        args: args.args,
        float: driver::FloatOptions {
            ftz: args.ftz,
            prec_div: args.prec_div,
            prec_sqrt: args.prec_sqrt,
            fast_math: args.use_fast_math,
        },
        warnings: if args.werror {
            driver::WarningMode::Error
        } else if args.no_warnings {
            driver::WarningMode::Silence
        } else {
            driver::WarningMode::Show
        },
        time: args.time,
        racecheck: args.racecheck,
        disable_passes: driver::check_pass_names(&args.disable_pass)?,
        allow_restrict_in_struct: args.allow_restrict_in_struct,
        error_limit: args.error_limit,
    };
    let summary = kernelc::run::run_and_report(&req, args.out.as_deref())?;
    write_output(None, &summary)
}

/// Writes to stdout, or to the file `path` as [`kernelc::output`] does:
/// whole or not at all, through links, keeping the file's mode.
fn write_output(path: Option<&Path>, text: &str) -> Result<(), String> {
    write_output_bytes(path, text.as_bytes())
}

/// [`write_output`] for bytes (`--emit obj`).
fn write_output_bytes(path: Option<&Path>, text: &[u8]) -> Result<(), String> {
    // `-o -` is stdout, as for most compilers (not a file named `-`).
    match path.filter(|p| p.as_os_str() != "-") {
        Some(path) => kernelc::output::write_file(path, text),
        None => {
            let mut stdout = std::io::stdout().lock();
            stdout
                .write_all(text)
                .and_then(|()| stdout.flush())
                .map_err(|e| format!("error: cannot write to stdout: {e}"))
        }
    }
}
