//! `kernelc run`: run a kernel without a GPU.
//!
//! The command compiles a `.cu` file to IR (or reads a `.kir` file), binds
//! the kernel arguments given on the command line, runs the kernel in the
//! IR interpreter ([`kir_interp`]), writes every buffer back to
//! `DIR/argK.bin`, and prints one summary line per buffer. `--engine emu`
//! compiles the same way, through the backend, and runs the PTX in the PTX
//! emulator of ptx-validate instead (a `.ptx` input is run as written), and
//! `--engine gpu` runs the same PTX on a real device through the CUDA
//! driver ([`crate::gpu`]). The float options and warning flags of
//! compilation (`--fmad`, `-ftz`, `-prec-div`, `-prec-sqrt`,
//! `--use_fast_math`, `-w`, `-Werror`) apply to the run's compilation too.
//!
//! Argument syntax (documented for users in `docs/running.md`):
//! - scalars `i32:5`, `u32:7`, `i64:-3`, `u64:9`, `f32:2.5`, `f64:1e-3`;
//! - buffers `T[]:@file.bin` (raw little-endian contents), `T[]:zeros:N`,
//!   `T[]:iota:N` (0, 1, 2, ...), `T[]:rand:N:SEED`, with `T` one of
//!   `i8 u8 i32 u32 i64 u64 f16 f32 f64`;
//! - tensor maps `tmap:T:ROWSxCOLS:BOXROWSxBOXCOLS:SOURCE` (GPU and emulator engines);
//! - texture and surface objects `tex:FORMAT:EXTENT[:OPTIONS]:SOURCE`
//!   (`surf:` the same; [`crate::run_texture`]; on the GPU engine through
//!   [`crate::gpu_texture`]).
//!
//! `rand` uses splitmix64 (Steele, Lea and Flood), so a seed gives the same
//! data on every machine: each element takes the next 64-bit output; an
//! integer keeps its low bits, an `f32` is `(x >> 40) / 2^24` and an `f64`
//! `(x >> 11) / 2^53`, both uniform in `[0, 1)`.

use crate::driver::{self, FloatOptions, KernelName, WarningMode};
use crate::gpu;
use frontend::{Diagnostic, Severity, Span};
use kir_interp::{Fault, KernelArg, LaunchConfig, RunError};
use midend::ir::{Module, Type};
use ptx_emu as emu;
use std::path::{Path, PathBuf};
use stdx::itanium::readable;

/// The engine that runs the kernel.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
pub enum Engine {
    /// The IR interpreter.
    #[default]
    Interp,
    /// The PTX emulator ([`ptx_emu`]): runs the PTX the backend
    /// produced (or a `.ptx` file as given).
    Emu,
    /// A real GPU through the CUDA driver ([`crate::gpu`]).
    Gpu,
}

/// The element type of an argument as the user wrote it. The IR has no
/// signedness, but summaries and `iota`/`rand` data need it.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Elem {
    I8,
    U8,
    I16,
    U16,
    I32,
    U32,
    I64,
    U64,
    F32,
    F64,
    /// IEEE half precision, stored as its 16 bits (for `unsigned short`
    /// and `__half` data, such as the f16 tiles of a tensor-core kernel).
    F16,
}

impl Elem {
    const ALL: [(&'static str, Elem); 11] = [
        ("i8", Elem::I8),
        ("u8", Elem::U8),
        ("i16", Elem::I16),
        ("u16", Elem::U16),
        ("i32", Elem::I32),
        ("u32", Elem::U32),
        ("i64", Elem::I64),
        ("u64", Elem::U64),
        ("f32", Elem::F32),
        ("f64", Elem::F64),
        ("f16", Elem::F16),
    ];

    fn parse(s: &str) -> Option<Elem> {
        Elem::ALL.iter().find(|(n, _)| *n == s).map(|(_, e)| *e)
    }

    pub fn name(self) -> &'static str {
        Elem::ALL
            .iter()
            .find(|(_, e)| *e == self)
            .map_or("?", |(n, _)| n)
    }

    /// Size in bytes.
    pub fn size(self) -> usize {
        match self {
            Elem::I8 | Elem::U8 => 1,
            Elem::I16 | Elem::U16 | Elem::F16 => 2,
            Elem::I32 | Elem::U32 | Elem::F32 => 4,
            Elem::I64 | Elem::U64 | Elem::F64 => 8,
        }
    }

    /// The IR type of a scalar of this element type.
    pub fn ir_type(self) -> Type {
        match self {
            Elem::I8 | Elem::U8 => Type::I8,
            Elem::I16 | Elem::U16 => Type::I16,
            Elem::I32 | Elem::U32 => Type::I32,
            Elem::I64 | Elem::U64 => Type::I64,
            Elem::F32 => Type::F32,
            Elem::F64 => Type::F64,
            Elem::F16 => Type::F16,
        }
    }

    fn is_float(self) -> bool {
        matches!(self, Elem::F32 | Elem::F64 | Elem::F16)
    }

    fn is_signed(self) -> bool {
        matches!(self, Elem::I8 | Elem::I16 | Elem::I32 | Elem::I64)
    }

    /// The bits of element `x` (an integer keeps its low bits; a float is
    /// `x` converted to the float type).
    fn bits_of_index(self, x: u64) -> u64 {
        match self {
            Elem::F32 => u64::from((x as f32).to_bits()),
            Elem::F64 => (x as f64).to_bits(),
            Elem::F16 => half_bits(x as f64),
            _ => x,
        }
    }

    /// One element read from little-endian bytes, as text.
    fn format(self, bytes: &[u8]) -> String {
        let mut raw = [0u8; 8];
        raw[..bytes.len()].copy_from_slice(bytes);
        let u = u64::from_le_bytes(raw);
        match self {
            Elem::I8 => (u as u8 as i8).to_string(),
            Elem::U8 => (u as u8).to_string(),
            Elem::I16 => (u as u16 as i16).to_string(),
            Elem::U16 => (u as u16).to_string(),
            Elem::I32 => (u as u32 as i32).to_string(),
            Elem::U32 => (u as u32).to_string(),
            Elem::I64 => (u as i64).to_string(),
            Elem::U64 => u.to_string(),
            Elem::F32 => compact_f32(f32::from_bits(u as u32)),
            Elem::F64 => compact_f64(f64::from_bits(u)),
            Elem::F16 => compact_f32(half_value(u) as f32),
        }
    }

    /// One element as a number for the summary's sum.
    fn value(self, bytes: &[u8]) -> Num {
        let mut raw = [0u8; 8];
        raw[..bytes.len()].copy_from_slice(bytes);
        let u = u64::from_le_bytes(raw);
        match self {
            Elem::I8 => Num::Int(i128::from(u as u8 as i8)),
            Elem::U8 => Num::Int(i128::from(u as u8)),
            Elem::I16 => Num::Int(i128::from(u as u16 as i16)),
            Elem::U16 => Num::Int(i128::from(u as u16)),
            Elem::I32 => Num::Int(i128::from(u as u32 as i32)),
            Elem::U32 => Num::Int(i128::from(u as u32)),
            Elem::I64 => Num::Int(i128::from(u as i64)),
            Elem::U64 => Num::Int(i128::from(u)),
            Elem::F32 => Num::Float(f64::from(f32::from_bits(u as u32))),
            Elem::F64 => Num::Float(f64::from_bits(u)),
            Elem::F16 => Num::Float(half_value(u)),
        }
    }
}

/// The f16 nearest to `x` (ties to even), as bits.
fn half_bits(x: f64) -> u64 {
    kir_interp::eval::f64_to_float(x, Type::F16)
}

/// The value of f16 bits (exact in f64).
fn half_value(bits: u64) -> f64 {
    kir_interp::eval::float_to_f64(bits & 0xffff, Type::F16)
}

enum Num {
    Int(i128),
    Float(f64),
}

/// One kernel argument as parsed from the command line.
#[derive(Clone, Debug, PartialEq)]
pub enum ArgValue {
    Scalar {
        elem: Elem,
        bits: u64,
    },
    Buffer {
        elem: Elem,
        bytes: Vec<u8>,
    },
    /// `tmap:T:ROWSxCOLS:BOXROWSxBOXCOLS:SOURCE`: a row-major matrix in
    /// global memory and a 2-D tensor map describing it (a `CUtensorMap`
    /// parameter, for TMA). The GPU engine has the CUDA driver encode the
    /// map; the emulator writes its own (`ptx_emu::tma`), which only its
    /// TMA instructions read. The interpreter models no TMA.
    TensorMap {
        elem: Elem,
        bytes: Vec<u8>,
        map: gpu::TensorMapShape,
    },
    /// `tex:...` or `surf:...`: a texture or surface object of the texture
    /// model (`crate::run_texture`); `elem` is its channel type. The
    /// interpreter and the emulator serve either kind of access from
    /// either; the GPU engine makes a `surf:` a surface object and a
    /// `tex:` a texture object (`crate::gpu_texture`).
    Texture {
        elem: Elem,
        resource: stdx::texture::Resource,
        surface: bool,
    },
}

impl ArgValue {
    /// The element type, which the summary and `--out` files use.
    pub fn elem(&self) -> Elem {
        match self {
            ArgValue::Scalar { elem, .. }
            | ArgValue::Buffer { elem, .. }
            | ArgValue::TensorMap { elem, .. }
            | ArgValue::Texture { elem, .. } => *elem,
        }
    }
}

/// `ROWSxCOLS` (both at least 1).
fn parse_matrix_dims(text: &str, what: &str) -> Result<[u32; 2], String> {
    let bad = || format!("`{text}` is not a valid {what} (expected ROWSxCOLS, e.g. `64x64`)");
    let (r, c) = text.split_once('x').ok_or_else(bad)?;
    let r: u32 = r.parse().map_err(|_| bad())?;
    let c: u32 = c.parse().map_err(|_| bad())?;
    if r == 0 || c == 0 {
        return Err(bad());
    }
    Ok([r, c])
}

/// The `tmap:` argument after its prefix: `T:ROWSxCOLS:BOXROWSxBOXCOLS:SOURCE`.
fn parse_tensor_map(rest: &str) -> Result<ArgValue, String> {
    let usage = "a tensor map is `tmap:T:ROWSxCOLS:BOXROWSxBOXCOLS:SOURCE` (e.g. \
                 `tmap:f32:64x64:32x32:iota:4096`)";
    let mut parts = rest.splitn(4, ':');
    let (Some(ty), Some(dims), Some(boxd), Some(source)) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(usage.into());
    };
    let (elem, dtype) = Elem::parse(ty)
        .and_then(|e| gpu::tensor_map_type(e.name()).map(|d| (e, d)))
        .ok_or_else(|| {
            format!("`{ty}` cannot be a tensor map's element (use u8, i32, u32, i64, u64, f16, f32 or f64)")
        })?;
    let [rows, cols] = parse_matrix_dims(dims, "matrix size")?;
    let [box_rows, box_cols] = parse_matrix_dims(boxd, "box size")?;
    let bytes = parse_buffer(elem, source)?;
    let want = u64::from(rows) * u64::from(cols);
    let have = (bytes.len() / elem.size()) as u64;
    if have != want {
        return Err(format!(
            "the {rows}x{cols} matrix needs {want} elements, and `{source}` gives {have}"
        ));
    }
    Ok(ArgValue::TensorMap {
        elem,
        bytes,
        map: gpu::TensorMapShape {
            elem: elem.name(),
            dtype,
            elem_bytes: elem.size() as u32,
            rows,
            cols,
            box_rows,
            box_cols,
        },
    })
}

/// splitmix64, documented so that anyone can regenerate the same data
/// outside kernelc (it lives in the midend, whose tests use it too).
pub use stdx::rng::SplitMix64;

/// The bits of a `rand` element drawn from `x`.
fn rand_bits(elem: Elem, x: u64) -> u64 {
    match elem {
        Elem::F32 => u64::from(((x >> 40) as f32 / (1u64 << 24) as f32).to_bits()),
        Elem::F64 => ((x >> 11) as f64 / (1u64 << 53) as f64).to_bits(),
        Elem::F16 => half_bits((x >> 40) as f64 / (1u64 << 24) as f64),
        _ => x,
    }
}

/// The most elements a generated buffer may have (1 GiB of `u8`): enough for
/// any test, small enough that a typo cannot exhaust memory.
const MAX_GENERATED: u64 = 1 << 30;

fn parse_count(s: &str, what: &str) -> Result<usize, String> {
    let n: u64 = s
        .parse()
        .map_err(|_| format!("`{s}` is not a valid {what} (a non-negative integer)"))?;
    if n > MAX_GENERATED {
        return Err(format!("{what} {n} is too large (at most {MAX_GENERATED})"));
    }
    Ok(n as usize)
}

/// Parses one kernel argument (`i32:5`, `f32[]:iota:1000`, ...).
pub fn parse_arg(text: &str) -> Result<ArgValue, String> {
    let bad = |why: String| format!("invalid argument `{text}`: {why}");
    let Some((ty, rest)) = text.split_once(':') else {
        return Err(bad(
            "expected TYPE:VALUE (e.g. `i32:5`) or TYPE[]:SOURCE (e.g. `f32[]:zeros:1024`)".into(),
        ));
    };
    if ty == "tmap" {
        return parse_tensor_map(rest).map_err(bad);
    }
    if ty == "tex" || ty == "surf" {
        let (elem, resource) = crate::run_texture::parse(rest).map_err(bad)?;
        let elem = Elem::parse(elem).ok_or_else(|| bad(format!("`{elem}`")))?;
        return Ok(ArgValue::Texture {
            elem,
            resource,
            surface: ty == "surf",
        });
    }
    if let Some(elem_name) = ty.strip_suffix("[]") {
        let elem = Elem::parse(elem_name).ok_or_else(|| {
            bad(format!(
                "unknown element type `{elem_name}` (use i8, u8, i16, u16, i32, u32, i64, u64, f16, f32 or f64)"
            ))
        })?;
        return parse_buffer(elem, rest)
            .map(|bytes| ArgValue::Buffer { elem, bytes })
            .map_err(bad);
    }
    let elem = Elem::parse(ty).ok_or_else(|| {
        bad(format!(
            "unknown scalar type `{ty}` (use i8, u8, i16, u16, i32, u32, i64, u64, f16, f32 or f64; `{ty}[]:...` for a buffer)"
        ))
    })?;
    let not = |kind: &str| bad(format!("`{rest}` is not a valid {kind}"));
    let bits = match elem {
        Elem::I8 => u64::from(rest.parse::<i8>().map_err(|_| not("i8"))? as u8),
        Elem::U8 => u64::from(rest.parse::<u8>().map_err(|_| not("u8"))?),
        Elem::I16 => u64::from(rest.parse::<i16>().map_err(|_| not("i16"))? as u16),
        Elem::U16 => u64::from(rest.parse::<u16>().map_err(|_| not("u16"))?),
        Elem::I32 => u64::from(rest.parse::<i32>().map_err(|_| not("i32"))? as u32),
        Elem::U32 => u64::from(rest.parse::<u32>().map_err(|_| not("u32"))?),
        Elem::I64 => rest.parse::<i64>().map_err(|_| not("i64"))? as u64,
        Elem::U64 => rest.parse::<u64>().map_err(|_| not("u64"))?,
        Elem::F32 => u64::from(rest.parse::<f32>().map_err(|_| not("f32"))?.to_bits()),
        Elem::F64 => rest.parse::<f64>().map_err(|_| not("f64"))?.to_bits(),
        Elem::F16 => half_bits(rest.parse::<f64>().map_err(|_| not("f16"))?),
    };
    Ok(ArgValue::Scalar { elem, bits })
}

/// The bytes of a buffer of the element type named `elem` from its source
/// (`zeros:N`, ...), for the texture arguments.
pub(crate) fn buffer_of(elem: &str, source: &str) -> Result<Vec<u8>, String> {
    let elem = Elem::parse(elem).ok_or_else(|| format!("unknown element type `{elem}`"))?;
    parse_buffer(elem, source)
}

/// The bytes of a buffer of `elem` from its source (`@FILE`, `zeros:N`, ...).
fn parse_buffer(elem: Elem, source: &str) -> Result<Vec<u8>, String> {
    let size = elem.size();
    let from_bits = |n: usize, mut f: Box<dyn FnMut(u64) -> u64>| {
        let mut bytes = Vec::with_capacity(n * size);
        for i in 0..n as u64 {
            bytes.extend_from_slice(&f(i).to_le_bytes()[..size]);
        }
        bytes
    };
    let bytes = if let Some(path) = source.strip_prefix('@') {
        let bytes =
            std::fs::read(path).map_err(|e| format!("cannot read buffer file `{path}`: {e}"))?;
        if bytes.len() % size != 0 {
            return Err(format!(
                "`{path}` holds {} bytes, not a whole number of {} elements ({size} bytes each)",
                bytes.len(),
                elem.name()
            ));
        }
        bytes
    } else {
        let parts: Vec<&str> = source.split(':').collect();
        match parts.as_slice() {
            ["zeros", n] => vec![0; parse_count(n, "element count")? * size],
            ["iota", n] => from_bits(
                parse_count(n, "element count")?,
                Box::new(move |i| elem.bits_of_index(i)),
            ),
            ["rand", n, seed] => {
                let seed: u64 = seed
                    .parse()
                    .map_err(|_| format!("`{seed}` is not a valid seed (an unsigned integer)"))?;
                let mut rng = SplitMix64(seed);
                from_bits(
                    parse_count(n, "element count")?,
                    Box::new(move |_| rand_bits(elem, rng.next_u64())),
                )
            }
            _ => {
                return Err(
                    "a buffer is `@FILE`, `zeros:N`, `iota:N` or `rand:N:SEED` after `T[]:`".into(),
                )
            }
        }
    };
    Ok(bytes)
}

/// Parses `X[,Y[,Z]]` into three dimensions (missing ones are 1).
pub fn parse_dims(s: &str, what: &str) -> Result<[u32; 3], String> {
    let parts: Vec<&str> = s.split(',').collect();
    if parts.is_empty() || parts.len() > 3 {
        return Err(format!(
            "error: `--{what} {s}` is not of the form X[,Y[,Z]]"
        ));
    }
    let mut dims = [1u32; 3];
    for (d, p) in dims.iter_mut().zip(&parts) {
        *d = p
            .trim()
            .parse()
            .ok()
            .filter(|&n: &u32| n > 0)
            .ok_or_else(|| format!("error: `--{what} {s}`: `{p}` is not a positive integer"))?;
    }
    Ok(dims)
}

/// Splits a run spec into command-line words: `#` starts a comment that runs
/// to the end of the line, and words are separated by whitespace (lines
/// included), so a spec may be one line or one option per line.
pub fn spec_words(text: &str) -> Vec<String> {
    text.lines()
        .flat_map(|line| {
            let line = line.split('#').next().unwrap_or("");
            line.split_whitespace().map(str::to_string)
        })
        .collect()
}

/// Everything `kernelc run` needs, with defaults filled in.
#[derive(Clone, Debug)]
pub struct RunRequest {
    pub input: PathBuf,
    pub kernel: String,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub shared_bytes: u32,
    /// `None`: `-O3` for `.cu`, `-O0` (run the IR as written) for `.kir`.
    pub opt_level: Option<u8>,
    /// `--fmad`: contract multiply-adds, as compilation does.
    pub fmad: bool,
    /// The target's `sm` number (from `-arch`), for `__CUDA_ARCH__`.
    pub sm: u32,
    /// The whole `-arch` name when it is not plain `sm_{sm}` (`sm_90a`,
    /// `sm_100a`): the emu and gpu engines compile for exactly that target,
    /// since wgmma, setmaxnreg and tcgen05 exist only there.
    pub arch: Option<String>,
    pub defines: Vec<(String, Option<String>)>,
    /// `-I DIR`: the folders `#include` searches, in order.
    pub include_dirs: Vec<String>,
    /// `-include FILE`: files read before the source.
    pub pre_includes: Vec<String>,
    /// `-std=c++NN`.
    pub std: Option<frontend::CxxStd>,
    pub engine: Engine,
    /// The most instructions one thread may execute.
    pub max_steps: u64,
    /// The most instructions the whole launch may execute (`u64::MAX`: no
    /// bound; `kernelc run --max-steps N` sets both to N).
    pub max_launch_steps: u64,
    pub args: Vec<String>,
    /// `-ftz`, `-prec-div`, `-prec-sqrt`, `--use_fast_math`, as compilation
    /// takes them (`--use_fast_math` also forces `--fmad=true`).
    pub float: FloatOptions,
    /// `-w` / `-Werror` for the frontend's warnings.
    pub warnings: WarningMode,
    /// `--time N` (gpu engine): time N more launches and report the median.
    pub time: u32,
    /// `--racecheck` (interp engine): report shared-memory races.
    pub racecheck: bool,
    /// `--disable-pass NAME`: passes left out of the `-O` pipeline.
    pub disable_passes: Vec<String>,
    /// `--allow-restrict-in-struct`: accept (and use) `__restrict__`
    /// pointers inside by-value structs, as compilation does with the flag.
    pub allow_restrict_in_struct: bool,
    /// `--error-limit N`: the frontend stops after N errors (0: no limit).
    pub error_limit: usize,
}

impl Default for RunRequest {
    /// An empty request with every option at its command-line default.
    fn default() -> Self {
        RunRequest {
            input: PathBuf::new(),
            kernel: String::new(),
            grid: [1; 3],
            block: [1; 3],
            shared_bytes: 0,
            opt_level: None,
            fmad: true,
            sm: 80,
            arch: None,
            defines: Vec::new(),
            include_dirs: Vec::new(),
            pre_includes: Vec::new(),
            std: None,
            engine: Engine::Interp,
            max_steps: kir_interp::DEFAULT_MAX_STEPS,
            max_launch_steps: u64::MAX,
            args: Vec::new(),
            float: FloatOptions::default(),
            warnings: WarningMode::Show,
            time: 0,
            racecheck: false,
            disable_passes: Vec::new(),
            allow_restrict_in_struct: false,
            error_limit: frontend::DEFAULT_ERROR_LIMIT,
        }
    }
}

impl RunRequest {
    /// The pass pipeline of `-O{level}` as compilation runs it with the
    /// run's options (`--fmad`, the float options, `--disable-pass`,
    /// `--allow-restrict-in-struct`).
    fn pipeline(&self, level: u8) -> midend::passes::Pipeline {
        driver::pipeline_for(&self.compile_options(level, driver::CompileOptions::default().target))
    }

    /// The compilation the run's program gets: `-O{level}` for `target`,
    /// with the run's source flags and options.
    fn compile_options(&self, level: u8, target: backend_nvptx::Target) -> driver::CompileOptions {
        driver::CompileOptions {
            target,
            opt_level: level,
            fmad: self.fmad,
            float: self.float,
            disable_passes: self.disable_passes.clone(),
            restrict_opts: midend::passes::restrict::Options {
                allow_in_struct: self.allow_restrict_in_struct,
                ..Default::default()
            },
            defines: self.defines.clone(),
            error_limit: self.error_limit,
            include_dirs: self.include_dirs.clone(),
            pre_includes: self.pre_includes.clone(),
            std: self.std,
            warnings: self.warnings,
            ..driver::CompileOptions::default()
        }
    }

    /// The target the engines run: `-arch` as given (`sm_90a`), else
    /// `sm_{sm}`.
    fn target(&self) -> Result<backend_nvptx::Target, String> {
        let arch = self
            .arch
            .clone()
            .unwrap_or_else(|| format!("sm_{}", self.sm));
        backend_nvptx::Target::parse(&arch).map_err(|e| format!("error: {e}"))
    }
}

/// A finished run: each argument's type and, for buffers, its final bytes.
#[derive(Clone, Debug)]
pub struct RunResult {
    pub args: Vec<(Elem, Option<Vec<u8>>)>,
    /// Instructions executed over all threads (0 on a GPU).
    pub steps: u64,
    /// The compiler's warnings, rendered, for stderr.
    pub messages: String,
    /// `--time`: the median kernel time in milliseconds, and the device.
    pub timing: Option<(f64, String)>,
    /// What the kernel's `printf` calls printed (the interpreter's and the
    /// emulator's; on a GPU the CUDA driver writes it to stdout itself when
    /// the launch is synchronized, `cuCtxSynchronize` in `gpu.rs`).
    pub printed: Vec<u8>,
}

/// The program as the interpreter will run it, and where it came from (for
/// rendering faults against the source).
struct Program {
    module: Module,
    /// The files of a `.cu` input.
    source: Option<frontend::SourceMap>,
    /// The frontend's warnings, rendered.
    messages: String,
}

fn load_program(req: &RunRequest) -> Result<Program, String> {
    let name = req.input.display().to_string();
    let text = std::fs::read_to_string(&req.input)
        .map_err(|e| format!("error: cannot read `{name}`: {e}"))?;
    let is_ir = req.input.extension().is_some_and(|e| e == "kir");
    if is_ir {
        let mut module =
            midend::text::parse_module(&text).map_err(|e| format!("error: {name}:{e}\n"))?;
        verify(&module, &format!("`{name}` is not valid IR"))?;
        // Without `-O`, IR runs exactly as written: no pass at all.
        if let Some(level) = req.opt_level {
            driver::optimize(&mut module, &req.pipeline(level), None).map_err(|e| e.rendered)?;
        }
        return Ok(Program {
            module,
            source: None,
            messages: String::new(),
        });
    }
    let level = req.opt_level.unwrap_or(3);
    let opts = req.compile_options(level, req.target()?);
    let lowered = driver::lower_with_loader(&name, &text, &opts, &crate::files::FsLoader)
        .map_err(|e| e.rendered)?;
    let mut messages = frontend::render_diagnostics_in(&lowered.map, &lowered.warnings);
    let mut module = lowered.module;
    let pipeline = driver::pipeline_for(&opts);
    messages +=
        &driver::optimize(&mut module, &pipeline, Some(&lowered.map)).map_err(|e| e.rendered)?;
    Ok(Program {
        module,
        source: Some(lowered.map),
        messages,
    })
}

fn verify(module: &Module, headline: &str) -> Result<(), String> {
    midend::verifier::verify_module(module).map_err(|errors| {
        let mut msg = format!("error: {headline}\n");
        for (func, errs) in errors {
            msg.push_str(&errs.annotate(&module.functions[func], Some(module)));
        }
        msg
    })
}

/// Renders a fault: with the source snippet when the instruction's span is
/// known and the input was C, as a plain message otherwise.
pub fn render_fault(fault: &Fault, source: Option<&frontend::SourceMap>) -> String {
    let [bx, by, bz] = fault.block;
    let [tx, ty, tz] = fault.thread;
    let mut location = format!(
        "in kernel `{}`, block ({bx},{by},{bz}), thread ({tx},{ty},{tz})",
        readable(&fault.kernel)
    );
    if fault.function != fault.kernel {
        location.push_str(&format!(", in function `{}`", readable(&fault.function)));
    }
    if let Some(inst) = fault.inst {
        location.push_str(&format!(", at IR {inst}"));
    }
    match (source, fault.span) {
        (Some(map), Some(span)) => {
            let mut d = Diagnostic::without_code(
                Severity::Error,
                Span::new(span.start, span.end),
                format!("kernel fault: {}", fault.message),
            )
            .with_note(location);
            for n in &fault.notes {
                d = d.with_note(n.clone());
            }
            if let Some(rel) = &fault.related {
                match rel.span {
                    Some(s) => d = d.with_label(Span::new(s.start, s.end), rel.message.clone()),
                    None => d = d.with_note(format!("{} (IR {})", rel.message, rel.inst)),
                }
            }
            frontend::render_diagnostics_in(map, &[d])
        }
        _ => {
            let mut out = format!(
                "error: kernel fault: {}\n  = note: {location}\n",
                fault.message
            );
            if let Some(span) = fault.span {
                out.push_str(&format!(
                    "  = note: source bytes {}..{}\n",
                    span.start, span.end
                ));
            }
            for n in &fault.notes {
                out.push_str(&format!("  = note: {n}\n"));
            }
            if let Some(rel) = &fault.related {
                out.push_str(&format!(
                    "  = note: {}: in `{}` at IR {}",
                    rel.message, rel.function, rel.inst
                ));
                if let Some(span) = rel.span {
                    out.push_str(&format!(", source bytes {}..{}", span.start, span.end));
                }
                out.push('\n');
            }
            out
        }
    }
}

/// The arguments of `req`, parsed. A tensor map needs the GPU engine or the
/// emulator: the interpreter has no TMA unit to read it.
fn parse_args(req: &RunRequest) -> Result<Vec<ArgValue>, String> {
    let parsed: Vec<ArgValue> = req
        .args
        .iter()
        .map(|a| parse_arg(a).map_err(|e| format!("error: {e}")))
        .collect::<Result<_, _>>()?;
    if req.engine == Engine::Interp {
        if let Some(k) = parsed
            .iter()
            .position(|a| matches!(a, ArgValue::TensorMap { .. }))
        {
            return Err(format!(
                "error: argument {k} (`{}`) is a tensor map, which only `--engine gpu` and \
                 `--engine emu` can run\n  \
                 = note: the interpreter models no TMA unit to read it\n",
                req.args[k]
            ));
        }
    }
    Ok(parsed)
}

/// `--kernel NAME`: the kernel's PTX name. NAME is that name, or the
/// plain name of one kernel only (`vectorAdd` for `_Z9vectorAddPKfS0_Pfi`);
/// a plain name that several kernels have (nvcc's overloads) is an error
/// that lists them. A name no kernel has is left for the engine to report,
/// with the kernels it has.
pub fn resolve_kernel(requested: &str, kernels: &[KernelName]) -> Result<String, String> {
    let names: Vec<&str> = kernels.iter().map(|k| k.ptx.as_str()).collect();
    match stdx::itanium::lookup_kernel(requested, &names) {
        stdx::itanium::KernelLookup::Found(name) => Ok(name.to_string()),
        stdx::itanium::KernelLookup::Missing => Ok(requested.to_string()),
        stdx::itanium::KernelLookup::Ambiguous(many) => {
            let mut msg = format!(
                "error: `--kernel {requested}` is ambiguous: {} kernels have that name\n",
                many.len()
            );
            for k in kernels.iter().filter(|k| many.contains(&k.ptx.as_str())) {
                msg.push_str(&format!("  --> {}: `{}` ({})\n", k.at, k.ptx, k.readable()));
            }
            msg.push_str("  = help: give `--kernel` one of these full names\n");
            Err(msg)
        }
    }
}

/// The kernels of the input, to find `--kernel` among. Empty when the
/// input cannot be read or checked: the engine then says why.
fn input_kernels(req: &RunRequest) -> Vec<KernelName> {
    let name = req.input.display().to_string();
    let Ok(text) = std::fs::read_to_string(&req.input) else {
        return Vec::new();
    };
    match req.input.extension().and_then(|e| e.to_str()) {
        Some("ptx") => ptx_entries(&name, &text),
        Some("kir") => midend::text::parse_module(&text)
            .map(|m| {
                m.functions
                    .values()
                    .filter(|f| f.is_kernel())
                    .map(|f| KernelName::from_ptx(&f.name, name.clone()))
                    .collect()
            })
            .unwrap_or_default(),
        _ => {
            let mut fe = driver::frontend_options(req.sm, &req.defines).with_file_name(&name);
            fe.unit_path = driver::unit_path(&name);
            fe.include_dirs = req.include_dirs.clone();
            fe.pre_includes = req.pre_includes.clone();
            fe.std = req.std;
            let mut map = frontend::SourceMap::new(&name, &text);
            driver::kernels_of(&mut map, &fe, &crate::files::FsLoader).unwrap_or_default()
        }
    }
}

/// The kernels (`.entry`) of PTX text, each at its name's line and column.
fn ptx_entries(file: &str, ptx: &str) -> Vec<KernelName> {
    let mut out = Vec::new();
    for (i, line) in ptx.lines().enumerate() {
        let Some(at) = line.find(".entry") else {
            continue;
        };
        let rest = &line[at + ".entry".len()..];
        let start = rest.len() - rest.trim_start().len();
        let name: String = rest[start..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '$'))
            .collect();
        if !name.is_empty() && start > 0 {
            let col = at + ".entry".len() + start + 1;
            out.push(KernelName::from_ptx(
                &name,
                format!("{file}:{}:{col}", i + 1),
            ));
        }
    }
    out
}

/// Whether `input` is read as PTX (by its extension), which only the
/// emulator and the GPU run.
pub fn is_ptx_file(input: &Path) -> bool {
    input.extension().is_some_and(|e| e == "ptx")
}

/// Compiles (or reads) the program, binds the arguments and runs the kernel.
/// Errors come back rendered, ready for stderr.
pub fn execute(req: &RunRequest) -> Result<RunResult, String> {
    if req.time > 0 && req.engine != Engine::Gpu {
        return Err(
            "error: `--time` measures launches on a real GPU; it needs `--engine gpu`\n".into(),
        );
    }
    if req.racecheck && req.engine != Engine::Interp {
        return Err(
            "error: `--racecheck` is done by the IR interpreter; use it with `--engine interp`\n"
                .into(),
        );
    }
    if is_ptx_file(&req.input) && req.engine == Engine::Interp {
        return Err(format!(
            "error: `{}` is PTX, which the IR interpreter cannot run: use `--engine emu` (the PTX emulator) or `--engine gpu`\n",
            req.input.display()
        ));
    }
    let req = &RunRequest {
        kernel: resolve_kernel(&req.kernel, &input_kernels(req))?,
        ..req.clone()
    };
    match req.engine {
        Engine::Interp => {}
        Engine::Emu => return execute_emu(req),
        Engine::Gpu => return execute_gpu(req),
    }
    let parsed = parse_args(req)?;
    let program = load_program(req)?;
    let kernel_args = interp_args(&parsed);
    let config = LaunchConfig {
        grid: req.grid,
        block: req.block,
        dynamic_shared_bytes: req.shared_bytes,
        max_steps_per_thread: req.max_steps,
        max_steps_per_launch: req.max_launch_steps,
        racecheck: req.racecheck,
        ..LaunchConfig::default()
    };
    let out = kir_interp::run_kernel(&program.module, &req.kernel, &kernel_args, &config).map_err(
        |e| match e {
            RunError::Setup(e) => format!("error: {e}\n"),
            RunError::Fault(f) => render_fault(&f, program.source.as_ref()),
        },
    )?;
    let args = parsed
        .iter()
        .zip(out.buffers)
        .map(|(a, buf)| (a.elem(), buf))
        .collect();
    Ok(RunResult {
        args,
        steps: out.steps,
        messages: program.messages,
        timing: None,
        printed: out.printed,
    })
}

/// The arguments as the interpreter binds them.
pub fn interp_args(parsed: &[ArgValue]) -> Vec<KernelArg> {
    parsed
        .iter()
        .map(|a| match a {
            ArgValue::Scalar { elem, bits } => KernelArg::Scalar {
                ty: elem.ir_type(),
                bits: *bits,
            },
            ArgValue::Buffer { bytes, .. } | ArgValue::TensorMap { bytes, .. } => {
                KernelArg::Buffer(bytes.clone())
            }
            ArgValue::Texture { resource, .. } => KernelArg::Texture(resource.clone()),
        })
        .collect()
}

/// The PTX `--engine emu` runs, and the name faults are rendered under: a
/// `.ptx` file as written, or the backend's output for the program that
/// the interpreter would run (same `-O`, `--fmad`, `-arch`).
struct Ptx {
    /// The name faults are rendered under.
    name: String,
    text: String,
    /// The compiler's warnings, rendered.
    messages: String,
}

fn load_ptx(req: &RunRequest) -> Result<Ptx, String> {
    let name = req.input.display().to_string();
    if req.input.extension().is_some_and(|e| e == "ptx") {
        let text = std::fs::read_to_string(&req.input)
            .map_err(|e| format!("error: cannot read `{name}`: {e}"))?;
        return Ok(Ptx {
            name,
            text,
            messages: String::new(),
        });
    }
    let program = load_program(req)?;
    let target = req.target()?;
    let opts = backend_nvptx::Options {
        target,
        ptx_version: None,
        regalloc: backend_nvptx::RegallocMode::Virtual,
        producer: None,
        threads: 0,
        contract: req.fmad,
        line_info: None,
    };
    let ptx = backend_nvptx::compile_module(&program.module, &opts)
        .map_err(|e| format!("error: {e}\n"))?;
    Ok(Ptx {
        name: format!("{name} (as PTX)"),
        text: ptx,
        messages: program.messages,
    })
}

/// Renders an emulator fault against the PTX line of the instruction.
pub fn render_emu_fault(fault: &emu::Fault, name: &str, ptx: &str) -> String {
    let [bx, by, bz] = fault.block;
    let [tx, ty, tz] = fault.thread;
    let mut location = format!(
        "in kernel `{}`, block ({bx},{by},{bz}), thread ({tx},{ty},{tz})",
        readable(&fault.kernel)
    );
    if fault.function != fault.kernel {
        location.push_str(&format!(", in function `{}`", readable(&fault.function)));
    }
    location.push_str(&format!(", at PTX line {}", fault.line));
    if let Some(at) = &fault.source {
        // `-lineinfo`'s `.loc` before the instruction.
        location.push_str(&format!(" (source {}:{}:{})", at.file, at.line, at.col));
    }
    let span = Span::new(
        u32::try_from(fault.start).unwrap_or(u32::MAX),
        u32::try_from(fault.end).unwrap_or(u32::MAX),
    );
    let mut d = Diagnostic::without_code(
        Severity::Error,
        span,
        format!("kernel fault: {}", fault.message),
    )
    .with_note(location);
    for n in &fault.notes {
        d = d.with_note(n.clone());
    }
    frontend::render_diagnostics(name, ptx, &[d])
}

/// `--engine emu`: the same arguments and outputs as the interpreter, with
/// the kernel run as PTX.
fn execute_emu(req: &RunRequest) -> Result<RunResult, String> {
    let parsed = parse_args(req)?;
    let Ptx {
        name,
        text: ptx,
        messages,
    } = load_ptx(req)?;
    let args = emu_engine_args(&parsed);
    let config = emu::LaunchConfig {
        grid: req.grid,
        block: req.block,
        dynamic_shared_bytes: req.shared_bytes,
        max_steps_per_thread: req.max_steps,
        max_steps_per_launch: req.max_launch_steps,
        ..emu::LaunchConfig::default()
    };
    let out = emu::run_ptx(&ptx, &req.kernel, &args, &config).map_err(|e| match e {
        emu::RunError::Load(m) => format!("error: {name}: {m}\n"),
        emu::RunError::Setup(m) => format!("error: {m}\n"),
        emu::RunError::Fault(f) => render_emu_fault(&f, &name, &ptx),
    })?;
    let args = with_param_buffers(&parsed, out.buffers);
    Ok(RunResult {
        args,
        steps: out.steps,
        messages,
        timing: None,
        printed: out.printed,
    })
}

/// Pairs each argument with its final contents. The PTX engines return
/// nothing for a buffer bound to a by-value `.param` aggregate (a struct
/// parameter): it lives in read-only param space, so its contents after the
/// run are the bytes given, and they are reported and written to
/// `--out DIR` like every other buffer, as the interpreter does.
pub fn with_param_buffers(
    parsed: &[ArgValue],
    buffers: Vec<Option<Vec<u8>>>,
) -> Vec<(Elem, Option<Vec<u8>>)> {
    parsed
        .iter()
        .zip(buffers)
        .map(|(a, buf)| match a {
            ArgValue::Scalar { elem, .. } => (*elem, buf),
            ArgValue::Buffer { elem, bytes } | ArgValue::TensorMap { elem, bytes, .. } => {
                (*elem, buf.or_else(|| Some(bytes.clone())))
            }
            ArgValue::Texture { elem, resource, .. } => {
                (*elem, buf.or_else(|| Some(resource.data.clone())))
            }
        })
        .collect()
}

/// The arguments as the emulator (and the GPU engine) bind them.
pub fn emu_args(parsed: &[ArgValue]) -> Vec<emu::KernelArg> {
    parsed
        .iter()
        .map(|a| match a {
            ArgValue::Scalar { elem, bits } => emu::KernelArg::Scalar {
                bits: *bits,
                bytes: elem.size() as u32,
                float: elem.is_float(),
                name: elem.name().to_string(),
            },
            ArgValue::Buffer { bytes, .. } => emu::KernelArg::Buffer(bytes.clone()),
            // Bound as the 128-byte by-value `CUtensorMap` parameter; the GPU
            // engine writes the encoded map there.
            ArgValue::TensorMap { .. } => emu::KernelArg::Buffer(vec![0; gpu::TENSOR_MAP_BYTES]),
            ArgValue::Texture { resource, .. } => emu::KernelArg::Texture(resource.clone()),
        })
        .collect()
}

/// The arguments as the emulator engine binds them: those of [`emu_args`],
/// but a tensor map is the emulator's own, over its matrix.
fn emu_engine_args(parsed: &[ArgValue]) -> Vec<emu::KernelArg> {
    parsed
        .iter()
        .zip(emu_args(parsed))
        .map(|(a, bound)| match a {
            ArgValue::TensorMap { bytes, map, .. } => {
                emu::KernelArg::TensorMap(emu::TensorMapArg {
                    data: bytes.clone(),
                    elem_bytes: map.elem_bytes,
                    rows: map.rows,
                    cols: map.cols,
                    box_rows: map.box_rows,
                    box_cols: map.box_cols,
                    swizzle: 0,
                })
            }
            _ => bound,
        })
        .collect()
}

/// For each argument, whether it is a `surf:` (the GPU engine's
/// [`gpu::Launch::surfaces`]).
pub fn surface_args(parsed: &[ArgValue]) -> Vec<bool> {
    parsed
        .iter()
        .map(|a| matches!(a, ArgValue::Texture { surface: true, .. }))
        .collect()
}

/// `--engine gpu`: the emulator's PTX and argument binding, run on device 0.
/// Without a CUDA driver this fails before compiling anything.
fn execute_gpu(req: &RunRequest) -> Result<RunResult, String> {
    gpu::probe()?;
    let parsed = parse_args(req)?;
    let ptx = load_ptx(req)?;
    let args = emu_args(&parsed);
    let tensor_maps: Vec<Option<gpu::TensorMapData>> = parsed
        .iter()
        .map(|a| match a {
            ArgValue::TensorMap { bytes, map, .. } => Some(gpu::TensorMapData {
                shape: map.clone(),
                data: bytes.as_slice(),
            }),
            _ => None,
        })
        .collect();
    let surfaces = surface_args(&parsed);
    let out = gpu::run(&gpu::Launch {
        ptx: &ptx.text,
        kernel: &req.kernel,
        args: &args,
        tensor_maps: &tensor_maps,
        surfaces: &surfaces,
        grid: req.grid,
        block: req.block,
        shared_bytes: req.shared_bytes,
        time_launches: req.time,
        // The driver prints to standard output, where the CLI prints.
        capture_printf: false,
    })?;
    let args = with_param_buffers(&parsed, out.buffers);
    Ok(RunResult {
        args,
        steps: 0,
        messages: ptx.messages,
        timing: out.median_ms.map(|ms| (ms, out.device)),
        printed: Vec::new(),
    })
}

/// The summary line of buffer `k`: its type and length, the first three
/// elements, and the sum (exact for integers, in f64 for floats).
/// The shortest decimal that reads back to `x`, in exponent form when plain
/// decimals would need more than a few leading or trailing zeros (a tiny
/// `f64` would otherwise print hundreds of digits).
fn compact_f64(x: f64) -> String {
    if x == 0.0 || !x.is_finite() || (1e-4..1e16).contains(&x.abs()) {
        format!("{x}")
    } else {
        format!("{x:e}")
    }
}

/// [`compact_f64`] for `f32`, keeping `f32`'s own shortest digits.
fn compact_f32(x: f32) -> String {
    if x == 0.0 || !x.is_finite() || (1e-4..1e16).contains(&x.abs()) {
        format!("{x}")
    } else {
        format!("{x:e}")
    }
}

pub fn summarize(k: usize, elem: Elem, bytes: &[u8]) -> String {
    let size = elem.size();
    let n = bytes.len() / size;
    let items: Vec<&[u8]> = bytes.chunks_exact(size).collect();
    let first: Vec<String> = items.iter().take(3).map(|b| elem.format(b)).collect();
    let mut line = format!("arg{k} {}[{n}]:", elem.name());
    if n > 0 {
        line.push_str(if n > 3 { " first " } else { " " });
        line.push_str(&first.join(", "));
        if n > 3 {
            line.push_str(", ...");
        }
    }
    let sum = if elem.is_float() {
        let s: f64 = items
            .iter()
            .map(|b| match elem.value(b) {
                Num::Float(f) => f,
                Num::Int(i) => i as f64,
            })
            .sum();
        compact_f64(s)
    } else {
        let s: i128 = items
            .iter()
            .map(|b| match elem.value(b) {
                Num::Int(i) => i,
                Num::Float(f) => f as i128,
            })
            .sum();
        debug_assert!(elem.is_signed() || s >= 0);
        s.to_string()
    };
    line.push_str(&format!(" sum {sum}"));
    line
}

/// The most threads a launch on the interpreter or the emulator can be
/// expected to finish (2^24, 16,777,216): each runs one thread at a time,
/// at some tens of millions of instructions a second.
pub const LARGE_LAUNCH_THREADS: u64 = 1 << 24;

/// A warning for a launch of more than [`LARGE_LAUNCH_THREADS`] threads on
/// an engine that runs them one by one, saying how to bound it.
pub fn launch_size_warning(req: &RunRequest) -> Option<String> {
    let threads: u64 = req
        .grid
        .iter()
        .chain(&req.block)
        .map(|&d| u64::from(d))
        .product();
    let one_by_one = matches!(req.engine, Engine::Interp | Engine::Emu);
    (one_by_one && threads > LARGE_LAUNCH_THREADS).then(|| {
        format!(
            "warning: the launch has {threads} threads; the {} runs them one at a time and may not finish (more than {LARGE_LAUNCH_THREADS}); `--max-steps N` bounds the whole launch",
            if req.engine == Engine::Interp { "interpreter" } else { "emulator" }
        )
    })
}

/// Runs the request, writes the buffers to `out_dir` (when given) and
/// returns the summary text for stdout.
pub fn run_and_report(req: &RunRequest, out_dir: Option<&Path>) -> Result<String, String> {
    if let Some(warning) = launch_size_warning(req) {
        eprintln!("{warning}");
    }
    let result = execute(req)?;
    eprint!("{}", result.messages);
    // The kernel's printf output comes first, as it does when a GPU
    // program synchronizes.
    {
        use std::io::Write;
        let mut stdout = std::io::stdout().lock();
        let written = stdout
            .write_all(&result.printed)
            .and_then(|()| stdout.flush());
        written.map_err(|e| format!("error: cannot write the kernel's printf output: {e}"))?;
    }
    if let Some(dir) = out_dir {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("error: cannot create `{}`: {e}", dir.display()))?;
        for (k, (_, buf)) in result.args.iter().enumerate() {
            if let Some(bytes) = buf {
                crate::output::write_file(&dir.join(format!("arg{k}.bin")), bytes)?;
            }
        }
    }
    let mut text = String::new();
    for (k, (elem, buf)) in result.args.iter().enumerate() {
        if let Some(bytes) = buf {
            text.push_str(&summarize(k, *elem, bytes));
            text.push('\n');
        }
    }
    if let Some((ms, device)) = &result.timing {
        text.push_str(&format!(
            "time: median {ms:.6} ms over {} launches on {device} (CUDA events)\n",
            req.time
        ));
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix64_matches_the_reference_sequence() {
        // The first outputs for seed 1234567 from the reference C code.
        let mut r = SplitMix64(1234567);
        assert_eq!(r.next_u64(), 6457827717110365317);
        assert_eq!(r.next_u64(), 3203168211198807973);
    }

    #[test]
    fn args_parse() {
        assert_eq!(
            parse_arg("i32:-5"),
            Ok(ArgValue::Scalar {
                elem: Elem::I32,
                bits: 0xffff_fffb
            })
        );
        assert_eq!(
            parse_arg("u8[]:iota:3"),
            Ok(ArgValue::Buffer {
                elem: Elem::U8,
                bytes: vec![0, 1, 2]
            })
        );
        assert_eq!(
            parse_arg("i16:-2"),
            Ok(ArgValue::Scalar {
                elem: Elem::I16,
                bits: 0xfffe
            })
        );
        assert_eq!(
            parse_arg("u16[]:iota:2"),
            Ok(ArgValue::Buffer {
                elem: Elem::U16,
                bytes: vec![0, 0, 1, 0]
            })
        );
        assert!(parse_arg("i16:40000").is_err());
        assert!(parse_arg("f32[]:rand:4").is_err());
        assert!(parse_arg("i33:1").is_err());
        assert!(parse_arg("u32:-1").is_err());
        assert_eq!(parse_dims("4,2", "grid"), Ok([4, 2, 1]));
        assert!(parse_dims("0", "grid").is_err());
    }

    #[test]
    fn summaries() {
        let bytes: Vec<u8> = [1.0f32, 3.0, 5.0, 7.0]
            .iter()
            .flat_map(|f| f.to_le_bytes())
            .collect();
        assert_eq!(
            summarize(2, Elem::F32, &bytes),
            "arg2 f32[4]: first 1, 3, 5, ... sum 16"
        );
        assert_eq!(
            summarize(0, Elem::I8, &[0xff, 2]),
            "arg0 i8[2]: -1, 2 sum 1"
        );
        let tiny: Vec<u8> = [1e-300f64, 2.5e20, 0.5]
            .iter()
            .flat_map(|f| f.to_le_bytes())
            .collect();
        assert_eq!(
            summarize(1, Elem::F64, &tiny),
            "arg1 f64[3]: 1e-300, 2.5e20, 0.5 sum 2.5e20"
        );
    }
}
