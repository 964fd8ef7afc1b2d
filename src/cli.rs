//! The compiler's command-line options, in nvcc's spellings: what
//! `kernelc FILE.cu` accepts, parsed by clap, and turned into the driver's
//! [`CompileOptions`]. They live in the library, not in `main.rs`, so that
//! every front door (the binary, `kernelc run`, the Python package) reads
//! an option the same way.

use crate::backend_nvptx::{RegallocMode, Target};
use crate::driver::{self, CompileOptions, Emit};
use clap::{Args, Parser, ValueEnum};
use std::ffi::OsString;
use std::path::PathBuf;

#[derive(Copy, Clone, Debug, ValueEnum)]
pub enum EmitArg {
    Tokens,
    Ast,
    Ir,
    IrOpt,
    /// The control-flow graph of each function (of the `-O` level's IR) as
    /// Graphviz DOT: `dot -Tsvg`.
    Dot,
    Ptx,
    /// The machine IR before PTX printing.
    Mir,
    /// An x86-64 ELF object with the PTX as data (needs `-o`).
    Obj,
}

#[derive(Copy, Clone, Debug, ValueEnum)]
pub enum RegallocArg {
    /// One virtual register per value (ptxas allocates).
    Virtual,
    /// Compact .b32/.b64/.pred registers with regalloc2.
    Regalloc2,
}

#[derive(Copy, Clone, Debug, ValueEnum)]
pub enum OnOff {
    On,
    Off,
}

/// The knobs of memory-space inference (`docs/memspace.md`), shared by
/// `kernelc` and `kernelc opt`.
#[derive(Args, Debug)]
pub struct MemspaceArgs {
    /// Treat a merge with an input of unknown space as generic at once, and do
    /// no inter-procedural specialization.
    #[arg(long)]
    pub memspace_conservative: bool,
    /// How many clones specialization may attempt: -1 unlimited, 0 none.
    #[arg(long, value_name = "N", default_value_t = -1, allow_negative_numbers = true,
          value_parser = clap::value_parser!(i64).range(-1..))]
    pub clone_budget: i64,
    /// Generic pointer parameters of kernels point to global memory (as in nvcc).
    #[arg(long, value_name = "true|false", default_value = "true",
          action = clap::ArgAction::Set,
          value_parser = clap::builder::BoolishValueParser::new())]
    pub param_always_point_to_global: bool,
    /// Follow pointers loaded from memory (default true): from param or const
    /// memory they are global, from global memory when the module stores no
    /// other kind of pointer there; false: such pointers are generic.
    #[arg(long, value_name = "true|false", default_value = "true",
          num_args = 0..=1, default_missing_value = "true", require_equals = true,
          action = clap::ArgAction::Set,
          value_parser = clap::builder::BoolishValueParser::new())]
    pub track_indir_load: bool,
    /// Follow `inttoptr` back to the `ptrtoint` it came from (default true);
    /// false: generic.
    #[arg(long, value_name = "true|false", default_value = "true",
          num_args = 0..=1, default_missing_value = "true", require_equals = true,
          action = clap::ArgAction::Set,
          value_parser = clap::builder::BoolishValueParser::new())]
    track_int2ptr: bool,
    /// UNSAFE: access memory through every pointer of unknown space as global
    /// memory (wrong for shared or local memory). Off by default.
    #[arg(long)]
    pub memspace_assume_global: bool,
    /// Print the inter-procedural worklist transcript to stderr (`ip-msp:` lines).
    #[arg(long)]
    pub dump_ip_msp: bool,
    /// Print each generic pointer's inferred space and why to stderr (`memspace:` lines).
    #[arg(long)]
    pub explain_memspace: bool,
    /// The verbose trace: --dump-ip-msp and --explain-memspace together.
    #[arg(long)]
    pub memspace_verbose: bool,
    /// Warnings: `-Wgeneric` warns about every generic load, store or atomic left in a kernel.
    #[arg(short = 'W', value_name = "WARNING")]
    pub warnings: Vec<String>,
}

impl MemspaceArgs {
    pub fn options(&self) -> Result<crate::midend::passes::memspace::Options, String> {
        for w in &self.warnings {
            if w != "generic" {
                return Err(format!("error: unknown warning `-W{w}` (known: -Wgeneric)"));
            }
        }
        Ok(crate::midend::passes::memspace::Options {
            conservative: self.memspace_conservative,
            clone_budget: self.clone_budget,
            param_always_point_to_global: self.param_always_point_to_global,
            track_indir_load: self.track_indir_load,
            track_int2ptr: self.track_int2ptr,
            assume_global: self.memspace_assume_global,
            dump_ip_msp: self.dump_ip_msp || self.memspace_verbose,
            explain: self.explain_memspace || self.memspace_verbose,
            warn_generic: self.warnings.iter().any(|w| w == "generic"),
        })
    }
}

/// The knobs of restrict processing and its consumers (`docs/restrict.md`).
#[derive(Args, Debug)]
pub struct RestrictArgs {
    /// Restrict processing: 1 on (the default at -O1 and above), 0 off.
    #[arg(long, value_name = "0|1",
          value_parser = clap::builder::BoolishValueParser::new())]
    pub process_restrict: Option<bool>,
    /// Follow `T**`: pointers loaded through a restricted pointer get their own scope.
    #[arg(long)]
    pub apply_multi_level_restrict: bool,
    /// Accept a restricted pointer inside a by-value aggregate (otherwise an error).
    #[arg(long)]
    pub allow_restrict_in_struct: bool,
    /// Print the accesses restrict processing stamped, before and after (`restrict:` lines).
    #[arg(long)]
    pub dump_restrict: bool,
    /// Print, for every global load of a kernel, whether it became `ld.global.nc` and why not.
    #[arg(long)]
    pub explain_nc: bool,
}

/// How the source is read, as nvcc's options say (`docs/language.md`,
/// "Includes"), shared by `kernelc` and `kernelc run`.
#[derive(Args, Debug)]
pub struct SourceArgs {
    /// Search DIR for `#include` files (`-I DIR`, `-IDIR`; repeatable, in order).
    #[arg(short = 'I', long = "include-path", value_name = "DIR")]
    pub include_dirs: Vec<String>,
    /// Read FILE before the source, as if it were `#include`d first
    /// (`-include FILE`; repeatable).
    #[arg(long = "pre-include", value_name = "FILE")]
    pub pre_includes: Vec<String>,
    /// Accepted as nvcc's (`-extended-lambda`, `--expt-extended-lambda`):
    /// defines `__CUDACC_EXTENDED_LAMBDA__`.
    #[arg(long = "extended-lambda", alias = "expt-extended-lambda")]
    pub extended_lambda: bool,
    /// Accepted as nvcc's: defines `__CUDACC_RELAXED_CONSTEXPR__`.
    #[arg(long = "expt-relaxed-constexpr")]
    pub relaxed_constexpr: bool,
    /// The C++ dialect (`-std=c++17`): c++03, c++11, c++14, c++17 or c++20
    /// (sets `__cplusplus`, as nvcc).
    #[arg(long = "std", value_name = "c++NN")]
    pub std: Option<String>,
    /// Options for the host compiler (`-Xcompiler A,B`,
    /// `--compiler-options A,B`; repeatable). nvcc's device pass sees what
    /// the host preprocessor makes of them: `-DNAME[=VALUE]`, and
    /// `-fopenmp`'s `_OPENMP`; the rest is the host compiler's alone.
    #[arg(
        long = "compiler-options",
        value_name = "OPTS",
        allow_hyphen_values = true
    )]
    pub compiler_options: Vec<String>,
}

/// `_OPENMP` as GCC defines it with `-fopenmp` (OpenMP 4.5, every GCC
/// from 9 on; nvcc's device pass sees it through the host preprocessor).
const GCC_OPENMP_VERSION: &str = "201511";

impl SourceArgs {
    /// The macros these flags define, before the `-D`s (so a `-D` wins).
    pub fn defines(&self) -> Vec<(String, Option<String>)> {
        let mut defines = Vec::new();
        if self.extended_lambda {
            defines.push(("__CUDACC_EXTENDED_LAMBDA__".to_string(), None));
        }
        if self.relaxed_constexpr {
            defines.push(("__CUDACC_RELAXED_CONSTEXPR__".to_string(), None));
        }
        defines.extend(self.host_compiler_defines());
        defines
    }

    /// The macros the host compiler's options define on the device side
    /// too: `-fopenmp`'s `_OPENMP`, and `-D`s (a name nvcc's preprocessor
    /// would refuse is left to the host compiler's error).
    fn host_compiler_defines(&self) -> Vec<(String, Option<String>)> {
        let options = self.compiler_options.iter().flat_map(|o| o.split(','));
        options
            .filter_map(|option| {
                if option == "-fopenmp" {
                    return Some(("_OPENMP".to_string(), Some(GCC_OPENMP_VERSION.to_string())));
                }
                let define = option.strip_prefix("-D")?;
                let (name, value) = match define.split_once('=') {
                    Some((name, value)) => (name, Some(value.to_string())),
                    None => (define, None),
                };
                crate::frontend::check_define_name(name).ok()?;
                Some((name.to_string(), value))
            })
            .collect()
    }

    /// `-std=`'s standard, checked.
    pub fn std(&self) -> Result<Option<crate::frontend::CxxStd>, String> {
        self.std
            .as_deref()
            .map(|s| {
                crate::frontend::CxxStd::parse(s).ok_or_else(|| {
                    format!("error: `-std={s}` is not a C++ dialect nvcc accepts (c++03, c++11, c++14, c++17, c++20)")
                })
            })
            .transpose()
    }
}

/// Compile a CUDA-C kernel file to PTX.
#[derive(Parser, Debug)]
#[command(
    name = "kernelc",
    version,
    about,
    after_help = "\
Also: `kernelc opt FILE.kir [--passes a,b] [--print-after-all] [-o OUT]` reads IR text,\n\
runs passes and prints the IR (see `kernelc opt --help`).\n\
And: `kernelc --explain CODE` explains a diagnostic code such as E0001 (docs/diagnostics.md).\n\
And: `kernelc run FILE.cu --kernel NAME --grid X --block X ARG...` runs a kernel without a GPU\n\
(see `kernelc run --help` and docs/running.md).\n\
And: `kernelc validate FILE.ptx` checks PTX offline (ptx-validate) and prints its minimum .version/.target.\n\
And: `kernelc reduce FILE.cu --until \"<shell test>\"` shrinks a failing input (see `kernelc reduce --help`)."
)]
pub struct CompileArgs {
    /// The source file (.cu).
    pub input: PathBuf,
    /// Print no warnings (nvcc's `-w`).
    #[arg(short = 'w')]
    pub no_warnings: bool,
    /// Make every warning an error (`-Werror`, or nvcc's `-Werror all-warnings`).
    #[arg(long = "Werror")]
    pub werror: bool,
    /// Write the output here instead of stdout (`-` is stdout).
    #[arg(short = 'o', value_name = "OUT")]
    pub output: Option<PathBuf>,
    /// Target GPU (nvcc spelling; `-arch=sm_XX` works too).
    #[arg(
        long = "gpu-architecture",
        value_name = "sm_XX",
        default_value = "sm_80"
    )]
    pub arch: String,
    /// Target triple; kernelc writes `nvptx64-nvidia-cuda` only.
    #[arg(long, value_name = "TRIPLE", default_value = "nvptx64-nvidia-cuda")]
    pub target: String,
    /// Optimization level, 0 to 3.
    #[arg(short = 'O', value_name = "N", default_value_t = 3,
          value_parser = clap::value_parser!(u8).range(0..=3))]
    pub opt_level: u8,
    /// What to print.
    #[arg(long, value_enum, default_value = "ptx")]
    pub emit: EmitArg,
    /// Define a preprocessor macro: `-D NAME` or `-D NAME=VALUE`.
    #[arg(short = 'D', value_name = "NAME[=VAL]")]
    pub defines: Vec<String>,
    /// Use this PTX ISA `.version` instead of the lowest one the target needs.
    #[arg(long, value_name = "X.Y")]
    pub ptx_version: Option<String>,
    /// With `--emit ir`/`ir-opt`: show each instruction's source span (`!start..end`).
    #[arg(long)]
    pub ir_spans: bool,
    /// After compiling, assemble the PTX with ptxas and print each kernel's
    /// registers, stack, shared memory, spills and barriers (from the cubin) on stderr.
    #[arg(long)]
    pub stats: bool,
    /// Compile nothing: print the file's kernels, one a line, as the PTX
    /// names them, a tab, and readable (`_Z9vectorAddPKfS0_Pfi`,
    /// `vectorAdd(const float*, const float*, float*, int)`).
    #[arg(long)]
    pub list_kernels: bool,
    /// Contract `a * b + c` into one fused multiply-add (default true, as in
    /// nvcc; an explicit false wins over `--use_fast_math`).
    #[arg(long, value_name = "true|false",
          action = clap::ArgAction::Set,
          value_parser = clap::builder::BoolishValueParser::new())]
    pub fmad: Option<bool>,
    /// How to assign registers: virtual (one per value) or regalloc2 (compacted).
    #[arg(long, value_enum, value_name = "MODE", default_value = "virtual")]
    pub regalloc: RegallocArg,
    /// Flush `float` subnormals to zero (default false; true under
    /// `--use_fast_math` unless given).
    #[arg(long, value_name = "true|false",
          action = clap::ArgAction::Set,
          value_parser = clap::builder::BoolishValueParser::new())]
    pub ftz: Option<bool>,
    /// IEEE-rounded `float` division; `false` uses the approximate division
    /// (default true; false under `--use_fast_math` unless given).
    #[arg(long = "prec-div", value_name = "true|false",
          action = clap::ArgAction::Set,
          value_parser = clap::builder::BoolishValueParser::new())]
    pub prec_div: Option<bool>,
    /// IEEE-rounded `sqrtf` (default true; false under `--use_fast_math`
    /// unless given; recorded: kernelc's `sqrtf` is always correctly rounded).
    #[arg(long = "prec-sqrt", value_name = "true|false",
          action = clap::ArgAction::Set,
          value_parser = clap::builder::BoolishValueParser::new())]
    pub prec_sqrt: Option<bool>,
    /// Fast math: makes -ftz=true -prec-div=false -prec-sqrt=false the defaults
    /// (an option given explicitly wins, in either order, as in nvcc), and
    /// `expf`, `logf`, `sinf`, `cosf`, `powf` become `__expf`, ...
    #[arg(long = "use_fast_math")]
    pub use_fast_math: bool,
    /// Accepted for nvcc compatibility: PTX is what kernelc always produces.
    #[arg(long = "ptx", hide = true)]
    pub ptx: bool,
    /// Memory-space inference (on by default at -O1 and above).
    #[arg(long, value_enum, value_name = "on|off")]
    pub memspace: Option<OnOff>,
    /// Leave this pass out of the -O pipeline (repeatable; the names are
    /// in docs/passes.md).
    #[arg(long = "disable-pass", value_name = "PASS")]
    pub disable_pass: Vec<String>,
    /// Threads that optimize and select the functions of the file (0: as
    /// many as the work is worth, up to one per core and at most 8). The
    /// output is the same for every count.
    #[arg(long, value_name = "N", default_value_t = 0,
          value_parser = clap::value_parser!(u16).range(0..=MAX_THREADS))]
    pub threads: u16,
    /// Stop after N errors (0: no limit; also `-ferror-limit=N`).
    #[arg(long, value_name = "N", default_value_t = crate::frontend::DEFAULT_ERROR_LIMIT)]
    pub error_limit: usize,
    /// Relocatable device code, to link with other modules (also `-rdc`):
    /// device functions and variables are `.visible`, and `__CUDACC_RDC__`
    /// is defined. Default false, as in nvcc: the file is the whole device
    /// program, its device functions internal and unused ones left out.
    #[arg(long = "relocatable-device-code", value_name = "true|false",
          action = clap::ArgAction::Set,
          value_parser = clap::builder::BoolishValueParser::new())]
    pub relocatable_device_code: Option<bool>,
    /// Line information in the PTX (nvcc's `-lineinfo`): `.loc FILE LINE
    /// COLUMN` before the instructions of each source position, and
    /// `.file` lines naming the files (relative names joined to the
    /// working directory, as nvcc writes them).
    #[arg(long = "generate-line-info")]
    pub generate_line_info: bool,
    #[command(flatten)]
    pub ms: MemspaceArgs,
    #[command(flatten)]
    pub rs: RestrictArgs,
    #[command(flatten)]
    pub src: SourceArgs,
}

/// The most `--threads` accepted: more threads than functions, or than
/// cores, only cost memory.
pub const MAX_THREADS: i64 = 1024;

/// Rewrites nvcc's single-dash long options into the spellings clap knows:
/// `-arch=sm_90` / `-arch sm_90`, `-ptx`, `-lineinfo`, `-rdc=true` / `-rdc true`, `-include FILE`,
/// `-std=c++17`, `-extended-lambda`, `-expt-relaxed-constexpr`, `-Xcompiler OPTS`, the one-dash
/// spellings of the
/// floating-point options (`-ftz=true`, `-prec-div=false`, ...) and clang's
/// `-ferror-limit=N`. An argument that is not UTF-8 is none of these and
/// passes through unchanged (it may be a file name).
pub fn normalize_args(args: impl Iterator<Item = OsString>) -> Vec<OsString> {
    let mut out: Vec<OsString> = Vec::new();
    let mut skip_all_warnings = false;
    let mut host_options_next = false;
    for os_arg in args {
        let after_werror = std::mem::take(&mut skip_all_warnings);
        let Some(arg) = os_arg.to_str() else {
            out.push(os_arg);
            continue;
        };
        if std::mem::take(&mut host_options_next) {
            // The host compiler's options start with a dash: joined to the
            // option, clap cannot take them for options of its own.
            out.push(format!("--compiler-options={arg}").into());
        } else if arg == "-Xcompiler" || arg == "--compiler-options" {
            host_options_next = true;
        } else if let Some(v) = arg.strip_prefix("-Xcompiler=") {
            out.push(format!("--compiler-options={v}").into());
        } else if let Some(v) = arg.strip_prefix("-arch=") {
            out.push(format!("--gpu-architecture={v}").into());
        } else if arg == "-arch" {
            out.push("--gpu-architecture".into());
        } else if arg == "-Werror" || arg == "--Werror" || arg == "-Werror=all-warnings" {
            out.push("--Werror".into());
            skip_all_warnings = true;
            continue;
        } else if arg == "all-warnings" && after_werror {
            // nvcc's `-Werror all-warnings`: the kind kernelc always means.
        } else if arg == "-ptx" {
            out.push("--ptx".into());
        } else if arg == "-lineinfo" {
            out.push("--generate-line-info".into());
        } else if arg == "-include" {
            out.push("--pre-include".into());
        } else if arg == "-rdc" || arg.starts_with("-rdc=") {
            out.push(arg.replacen("-rdc", "--relocatable-device-code", 1).into());
        } else if let Some(n) = arg.strip_prefix("-ferror-limit=") {
            out.push(format!("--error-limit={n}").into());
        } else if [
            "-ftz",
            "-prec-div",
            "-prec-sqrt",
            "-use_fast_math",
            "-fmad",
            "-std",
            "-extended-lambda",
            "-expt-extended-lambda",
            "-expt-relaxed-constexpr",
        ]
        .iter()
        .any(|o| arg == *o || arg.starts_with(&format!("{o}=")))
        {
            // nvcc spells these with one dash as well as two.
            out.push(format!("-{arg}").into());
        } else {
            out.push(os_arg);
        }
    }
    if host_options_next {
        // `-Xcompiler` last: clap reports the missing value.
        out.push("--compiler-options".into());
    }
    out
}

pub fn parse_ptx_version(s: &str) -> Result<(u32, u32), String> {
    let bad = || format!("error: `--ptx-version {s}` is not of the form X.Y (e.g. 8.0)");
    let (major, minor) = s.split_once('.').ok_or_else(bad)?;
    Ok((
        major.parse().map_err(|_| bad())?,
        minor.parse().map_err(|_| bad())?,
    ))
}

/// `-D NAME` and `-D NAME=VALUE`, each name checked here, against the
/// command line, rather than reported at line 1 of the source.
pub fn parse_defines(defines: &[String]) -> Result<Vec<(String, Option<String>)>, String> {
    defines
        .iter()
        .map(|d| {
            let (name, value) = match d.split_once('=') {
                Some((name, value)) => (name, Some(value.to_string())),
                None => (d.as_str(), None),
            };
            crate::frontend::check_define_name(name)
                .map_err(|why| format!("error: -D {d}: {why}"))?;
            Ok((name.to_string(), value))
        })
        .collect()
}

/// The macros the source flags define, then the `-D`s.
pub fn source_defines(
    src: &SourceArgs,
    defines: &[String],
) -> Result<Vec<(String, Option<String>)>, String> {
    let mut all = src.defines();
    all.extend(parse_defines(defines)?);
    Ok(all)
}

impl CompileArgs {
    /// The driver's options these arguments ask for, each checked (the
    /// target, `-D` names, `--ptx-version`, `--disable-pass`, `-std`).
    pub fn options(&self) -> Result<CompileOptions, String> {
        Target::check_triple(&self.target).map_err(|e| format!("error: {e}"))?;
        let target = Target::parse(&self.arch).map_err(|e| format!("error: {e}"))?;
        Ok(CompileOptions {
            target,
            opt_level: self.opt_level,
            defines: source_defines(&self.src, &self.defines)?,
            ptx_version: self
                .ptx_version
                .as_deref()
                .map(parse_ptx_version)
                .transpose()?,
            emit: match self.emit {
                EmitArg::Tokens => Emit::Tokens,
                EmitArg::Ast => Emit::Ast,
                EmitArg::Ir => Emit::Ir,
                EmitArg::IrOpt => Emit::IrOpt,
                EmitArg::Dot => Emit::Dot,
                EmitArg::Ptx => Emit::Ptx,
                EmitArg::Mir => Emit::Mir,
                EmitArg::Obj => Emit::Obj,
            },
            ir_spans: self.ir_spans,
            fmad: self.fmad.unwrap_or(true),
            regalloc: match self.regalloc {
                RegallocArg::Virtual => RegallocMode::Virtual,
                RegallocArg::Regalloc2 => RegallocMode::Regalloc2,
            },
            memspace: self.memspace.map(|m| matches!(m, OnOff::On)),
            memspace_opts: self.ms.options()?,
            float: driver::FloatOptions {
                ftz: self.ftz,
                prec_div: self.prec_div,
                prec_sqrt: self.prec_sqrt,
                fast_math: self.use_fast_math,
            },
            process_restrict: self.rs.process_restrict,
            restrict_opts: crate::midend::passes::restrict::Options {
                multi_level: self.rs.apply_multi_level_restrict,
                allow_in_struct: self.rs.allow_restrict_in_struct,
                dump: self.rs.dump_restrict,
            },
            explain_nc: self.rs.explain_nc,
            disable_passes: driver::check_pass_names(&self.disable_pass)?,
            threads: usize::from(self.threads),
            error_limit: self.error_limit,
            relocatable: self.relocatable_device_code.unwrap_or(false),
            line_info: self.generate_line_info,
            source_dir: self.generate_line_info.then(working_dir).flatten(),
            warnings: if self.werror {
                driver::WarningMode::Error
            } else if self.no_warnings {
                driver::WarningMode::Silence
            } else {
                driver::WarningMode::Show
            },
            include_dirs: self.src.include_dirs.clone(),
            pre_includes: self.src.pre_includes.clone(),
            std: self.src.std()?,
        })
    }
}

/// The options that `words` (command-line words after the input file, in
/// any of nvcc's spellings) ask for, as `kernelc FILE words...` would
/// compile with them. The words that choose what to write (`-o`, `--emit`,
/// `--stats`, `--list-kernels`) belong to the command line alone: they
/// are refused here.
pub fn compile_options(words: &[String]) -> Result<CompileOptions, String> {
    let argv = ["kernelc", "input.cu"]
        .into_iter()
        .map(OsString::from)
        .chain(words.iter().map(OsString::from));
    let args = CompileArgs::try_parse_from(normalize_args(argv)).map_err(|e| e.to_string())?;
    let output_choice = [
        (args.output.is_some(), "-o"),
        (!matches!(args.emit, EmitArg::Ptx), "--emit"),
        (args.stats, "--stats"),
        (args.list_kernels, "--list-kernels"),
    ];
    if let Some((_, word)) = output_choice.iter().find(|(given, _)| *given) {
        return Err(format!(
            "error: `{word}` chooses what the command line writes; it is not a compile option here"
        ));
    }
    args.options()
}

/// The working directory as text, for `-lineinfo`'s `.file` paths (`None`
/// when it cannot be read or is not UTF-8: the names are then written as
/// given).
fn working_dir() -> Option<String> {
    std::env::current_dir()
        .ok()
        .and_then(|d| d.to_str().map(str::to_string))
}
