//! A PTX emulator: runs one `.entry` of a PTX module over a grid of blocks of
//! threads, without a GPU.
//!
//! Why it exists: kernelc's IR interpreter (`interp/`) checks that
//! the optimizer preserves meaning, but not that the backend does. Running
//! the PTX itself, and requiring the same bytes as the interpreter, checks
//! instruction selection, the calling convention and the address-space
//! handling of the backend. Because it reads any PTX, it also runs nvcc's
//! output, which makes nvcc an independent oracle.
//!
//! Loading comes first: the module is parsed (ptx-validate's parser),
//! every name is resolved ([`program`]) and every instruction decoded into
//! a typed operation ([`decode`]), so running never looks at a string, and
//! what the emulator cannot run is a load error at its PTX line.
//!
//! The model mirrors the interpreter's, so results compare bitwise:
//! - clusters of blocks run one after another (a block without
//!   `.reqnctapercluster` is a cluster of one), except in a cooperative
//!   launch, where the whole grid runs together ([`cooperative`]); the
//!   blocks of a cluster run together, and in each, every thread runs until it reaches a
//!   barrier, a warp collective or its end, then the next; barriers release
//!   when every live thread waits, the cluster barrier when every thread of
//!   the cluster has arrived, and warp collectives resolve per group of
//!   lanes at the same instruction ([`exec`]);
//! - state spaces are separate lists of allocations, reached through
//!   generic addresses (windows over the spaces) or space addresses
//!   ([`memory`]); an access through the wrong kind is a fault that names
//!   the PTX line;
//! - arithmetic has PTX's results where C has none ([`ops`]).
//!
//! Every register holds raw bits, masked to the width it was declared
//! with. Memory is zero-filled where a GPU leaves garbage, so runs are
//! deterministic.
//!
//! # Architecture invariants
//!
//! - **ptx-emu never imports the compiler crates** (frontend, midend,
//!   backend-nvptx, kernelc). It reads PTX with ptx-validate's lexer and
//!   parser only, for the reason the validator keeps apart: it must not
//!   share the compiler's idea of what PTX means.
//! - **It never panics on any PTX**: what it cannot run is an error that
//!   says "not supported by the emulator".

pub mod cooperative;
pub mod decode;
pub mod descriptor;
pub mod error;
mod exec;
pub mod lineinfo;
pub mod memory;
pub mod ops;
pub mod program;
pub mod rounding;
pub mod swizzle;
pub mod tma;

pub use error::{DecodeError, GivenArg, LoadError, ResolveError, SetupError};
pub use lineinfo::{source_position, SourcePosition};
use memory::{Alloc, Space};
use program::{Kind, Program};

/// The launch: grid, block, dynamic shared memory and limits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LaunchConfig {
    pub grid: [u32; 3],
    pub block: [u32; 3],
    /// Bytes of `.extern .shared` memory (the third `<<<>>>` parameter).
    pub dynamic_shared_bytes: u32,
    /// The most instructions one thread may execute.
    pub max_steps_per_thread: u64,
    /// The most instructions all the threads of the launch may execute
    /// together (`kernelc run --max-steps`); `u64::MAX`: no bound.
    pub max_steps_per_launch: u64,
    /// The deepest call stack, counting the kernel's frame.
    pub max_call_depth: usize,
}

/// Default step limit per thread (the interpreter's).
pub const DEFAULT_MAX_STEPS: u64 = 10_000_000;

impl Default for LaunchConfig {
    fn default() -> Self {
        LaunchConfig {
            grid: [1; 3],
            block: [1; 3],
            dynamic_shared_bytes: 0,
            max_steps_per_thread: DEFAULT_MAX_STEPS,
            max_steps_per_launch: u64::MAX,
            max_call_depth: 64,
        }
    }
}

/// One kernel argument.
#[derive(Clone, Debug, PartialEq)]
pub enum KernelArg {
    /// A buffer in global memory, bound to a 64-bit parameter (its address),
    /// or copied into a `.b8 name[N]` parameter (a by-value aggregate).
    Buffer(Vec<u8>),
    /// A scalar: its bits, its size in bytes, whether it is a float, and the
    /// type name the user wrote (for messages).
    Scalar {
        bits: u64,
        bytes: u32,
        float: bool,
        name: String,
    },
    /// A texture or surface object (`stdx::texture`), bound to a 64-bit
    /// parameter as its handle; the launch's output holds its final
    /// elements.
    Texture(stdx::texture::Resource),
    /// A tensor map (`kernelc run`'s `tmap:`): a row-major matrix in global
    /// memory and the emulator's own 2-D tiled map over it ([`tma`]), bound
    /// to a 128-byte by-value `CUtensorMap` parameter; the launch's output
    /// holds the matrix's final contents.
    TensorMap(TensorMapArg),
}

/// The matrix of a tensor-map argument and its boxes.
#[derive(Clone, Debug, PartialEq)]
pub struct TensorMapArg {
    /// The matrix, row-major, `rows * cols` elements of `elem_bytes`.
    pub data: Vec<u8>,
    pub elem_bytes: u32,
    pub rows: u32,
    pub cols: u32,
    pub box_rows: u32,
    pub box_cols: u32,
    /// The swizzle of a box in shared memory, in bytes: 0 (none), 32, 64
    /// or 128 ([`swizzle`]).
    pub swizzle: u32,
}

/// What a finished launch leaves behind.
#[derive(Clone, Debug, PartialEq)]
pub struct RunOutput {
    /// Each buffer argument's final contents (a texture's elements);
    /// `None` for scalars.
    pub buffers: Vec<Option<Vec<u8>>>,
    /// Instructions executed over all threads.
    pub steps: u64,
    /// What the kernel's `printf` calls printed, in the order they ran (at
    /// most [`PRINTF_LIMIT`] bytes, as a GPU's printf buffer is bounded).
    pub printed: Vec<u8>,
}

pub use stdx::printf::PRINTF_LIMIT;

#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum FaultKind {
    OutOfBounds,
    /// An access whose address is not of the instruction's state space.
    WrongSpace,
    Misaligned,
    NullPointer,
    /// Access to `.local`/`.param` storage of a call that has returned.
    Dangling,
    ReadOnly,
    BarrierDivergence,
    StepLimit,
    CallDepth,
    Trap,
    /// An instruction or form the emulator does not implement.
    Unsupported,
}

/// A run-time error, located at a PTX instruction of one thread.
#[derive(Clone, Debug, PartialEq)]
pub struct Fault {
    pub kind: FaultKind,
    /// Starts with the instruction as written (`ld.shared.u32: ...`).
    pub message: String,
    pub kernel: String,
    pub function: String,
    /// 1-based line and column of the instruction in the PTX.
    pub line: u32,
    pub col: u32,
    /// Byte range of the instruction in the PTX text.
    pub start: usize,
    pub end: usize,
    pub block: [u32; 3],
    pub thread: [u32; 3],
    pub notes: Vec<String>,
    /// The source position of the instruction, when the PTX carries
    /// line information (`-lineinfo`'s `.loc`).
    pub source: Option<SourcePosition>,
}

impl std::fmt::Display for Fault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let [bx, by, bz] = self.block;
        let [tx, ty, tz] = self.thread;
        write!(
            f,
            "{} (kernel `{}`, block ({bx},{by},{bz}), thread ({tx},{ty},{tz}), PTX line {})",
            self.message, self.kernel, self.line
        )
    }
}

/// Why a launch did not complete.
#[derive(Clone, Debug, PartialEq)]
pub enum RunError {
    /// The PTX does not parse, names something undeclared, or holds an
    /// instruction the emulator cannot run where the kernel can reach it
    /// (the message starts with `PTX line N:`).
    Load(LoadError),
    /// The launch is wrong (unknown kernel, arguments that do not fit).
    Setup(SetupError),
    Fault(Box<Fault>),
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::Load(m) => write!(f, "{m}"),
            RunError::Setup(m) => write!(f, "{m}"),
            RunError::Fault(x) => write!(f, "{x}"),
        }
    }
}

impl std::error::Error for RunError {}

/// Everything built before the first thread runs.
pub(crate) struct Setup {
    pub kernel: usize,
    pub global: Vec<Alloc>,
    pub constant: Vec<Alloc>,
    pub kparams: Vec<Alloc>,
    pub shared_template: Vec<Alloc>,
    /// Where each module variable lives: its space and allocation.
    pub var_loc: Vec<(Space, usize)>,
    /// For each argument, the global allocation of its buffer.
    pub buffer_slots: Vec<Option<usize>>,
    /// The texture and surface objects: handle `k + 1` is `textures[k]`.
    pub textures: Vec<stdx::texture::Resource>,
    /// For each argument, its texture, if it is one.
    pub texture_slots: Vec<Option<usize>>,
    /// The blocks of a cluster in each dimension.
    pub cluster: [u32; 3],
    /// Where each shared allocation starts in the block's shared window
    /// (see [`memory::shared_window`]).
    pub shared_base: Vec<u64>,
    /// A cooperative launch's grid workspace ([`cooperative`]): its
    /// generic address, whose high half `%envreg1` reads and whose low
    /// half `%envreg2` reads; `None` for a plain launch.
    pub workspace: Option<u64>,
}

/// Parses `src` and runs `kernel` with `args` over `config`.
pub fn run_ptx(
    src: &str,
    kernel: &str,
    args: &[KernelArg],
    config: &LaunchConfig,
) -> Result<RunOutput, RunError> {
    let module = ptx_validate::parser::parse(src).map_err(parse_error)?;
    let prog = program::build(src, &module).map_err(resolve_error)?;
    let kid = find_kernel(&prog, kernel).map_err(RunError::Setup)?;
    if let Some(e) = prog.reachable_load_error(kid) {
        return Err(RunError::Load(e.clone()));
    }
    let mut setup = setup(&prog, kid, args, config).map_err(RunError::Setup)?;
    setup.cluster = cluster_shape(&module, &prog.funcs[kid].name);
    check_cluster(setup.cluster, config.grid).map_err(RunError::Setup)?;
    if setup.workspace.is_some() {
        let shared = static_shared_bytes(&prog) + u64::from(config.dynamic_shared_bytes);
        cooperative::check_launch(config.grid, config.block, shared, setup.cluster)
            .map_err(RunError::Setup)?;
    }
    exec::run(&prog, setup, config).map_err(|e| match e {
        RunError::Fault(mut f) => {
            f.source = source_position(src, f.start);
            RunError::Fault(f)
        }
        other => other,
    })
}

/// ptx-validate's parse error as a load error.
fn parse_error(d: ptx_validate::diag::Diag) -> RunError {
    RunError::Load(LoadError::Parse {
        line: d.pos.line,
        message: d.msg,
    })
}

/// A name or declaration `program::build` could not resolve.
fn resolve_error(error: ResolveError) -> RunError {
    RunError::Load(LoadError::Resolve(error))
}

/// One instruction of a module, as the emulator decoded it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecodedInst {
    /// The function whose body holds it.
    pub function: String,
    /// `opcode.mod1.mod2`, as written.
    pub name: String,
    /// Its 1-based PTX line.
    pub line: u32,
    /// Why the emulator cannot run it; `None` when it can.
    pub error: Option<DecodeError>,
}

/// Every instruction of every function body of `src`, decoded as a launch
/// would decode it: what the emulator can run and what it cannot, for
/// coverage reports. Fails as [`run_ptx`] does on PTX that does not parse
/// or names something undeclared.
pub fn decode_module(src: &str) -> Result<Vec<DecodedInst>, RunError> {
    let module = ptx_validate::parser::parse(src).map_err(parse_error)?;
    let prog = program::build(src, &module).map_err(resolve_error)?;
    Ok(prog
        .funcs
        .iter()
        .flat_map(|f| {
            f.insts.iter().map(|i| DecodedInst {
                function: f.name.clone(),
                name: i.name.clone(),
                line: i.pos.line,
                error: match &i.op {
                    decode::Op::Invalid(err) => Some(err.clone()),
                    _ => None,
                },
            })
        })
        .collect())
}

/// The blocks of each cluster of `kernel`'s launches: its
/// `.reqnctapercluster` (what `__cluster_dims__` writes), else one. The
/// blocks of a cluster run together, each with its own shared memory,
/// which the others reach through `mapa`'s addresses.
fn cluster_shape(module: &ptx_validate::ast::Module, kernel: &str) -> [u32; 3] {
    let mut shape = [1; 3];
    for item in &module.items {
        let ptx_validate::ast::Item::Func(f) = item else {
            continue;
        };
        if f.name != kernel {
            continue;
        }
        for (d, values, _) in &f.directives {
            if d == ".reqnctapercluster" {
                for (dim, v) in shape.iter_mut().zip(values) {
                    *dim = u32::try_from(*v).unwrap_or(0);
                }
            }
        }
    }
    shape
}

/// Checks that the grid is made of whole clusters of a size CUDA launches.
fn check_cluster(cluster: [u32; 3], grid: [u32; 3]) -> Result<(), SetupError> {
    let blocks: u64 = cluster.iter().map(|&d| u64::from(d)).product();
    if blocks == 0 || blocks > u64::from(memory::MAX_CLUSTER_BLOCKS) {
        return Err(SetupError::ClusterSize {
            blocks,
            dims: cluster,
        });
    }
    for (axis, (&g, &c)) in grid.iter().zip(&cluster).enumerate() {
        if g % c != 0 {
            return Err(SetupError::ClusterGrid {
                axis,
                grid: g,
                cluster: c,
                dims: cluster,
            });
        }
    }
    Ok(())
}

/// How one kernel argument reaches its `.param`.
#[derive(Clone, Debug, PartialEq)]
pub enum Bound<'a> {
    /// A buffer in global memory: the parameter holds its address.
    Buffer(&'a [u8]),
    /// The parameter's own bytes: a scalar, or a by-value aggregate.
    Bytes(Vec<u8>),
    /// A texture or surface object: the parameter holds its handle.
    Texture(&'a stdx::texture::Resource),
    /// A tensor map: the parameter holds the emulator's map of the matrix.
    TensorMap(&'a TensorMapArg),
}

/// Binds `args` to the parameters of `kernel` in `src` by the parameter
/// types, exactly as [`run_ptx`] does: a buffer binds to a 64-bit integer
/// parameter (its address) or is copied into a `.b8 name[N]` aggregate of
/// its size; a scalar must have the parameter's size and kind. The GPU
/// engine of `kernelc run` binds through this too, so both engines accept
/// the same launches.
pub fn bind_params<'a>(
    src: &str,
    kernel: &str,
    args: &'a [KernelArg],
) -> Result<Vec<Bound<'a>>, RunError> {
    let mut module = ptx_validate::parser::parse(src).map_err(parse_error)?;
    // Binding needs the parameters only. A real GPU runs instructions the
    // emulator cannot build (a TMA copy's tensor address), so the bodies are
    // left out rather than resolved.
    for item in &mut module.items {
        if let ptx_validate::ast::Item::Func(f) = item {
            if f.body.is_some() {
                f.body = Some(Vec::new());
            }
        }
    }
    let prog = program::build(src, &module).map_err(resolve_error)?;
    let func = find_kernel(&prog, kernel).map_err(RunError::Setup)?;
    bind_args(&prog.funcs[func], kernel, args).map_err(RunError::Setup)
}

/// The index of the `.entry` named `kernel` (or of the one kernel whose
/// plain name it is).
fn find_kernel(prog: &Program, kernel: &str) -> Result<usize, SetupError> {
    let entries: Vec<&str> = prog
        .funcs
        .iter()
        .filter(|f| f.kind == ptx_validate::ast::FuncKind::Entry)
        .map(|f| f.name.as_str())
        .collect();
    // The `.entry` of that name, or of that plain name (nvcc's mangled
    // names: `vectorAdd` finds `_Z9vectorAddPKfS0_Pfi` when no other
    // kernel has it).
    let name = match stdx::itanium::lookup_kernel(kernel, &entries) {
        stdx::itanium::KernelLookup::Found(name) => name,
        stdx::itanium::KernelLookup::Ambiguous(k) => {
            return Err(SetupError::AmbiguousKernel {
                name: kernel.to_string(),
                kernels: k.iter().map(|n| n.to_string()).collect(),
            })
        }
        stdx::itanium::KernelLookup::Missing => kernel,
    };
    prog.funcs
        .iter()
        .position(|f| f.name == name && f.kind == ptx_validate::ast::FuncKind::Entry)
        .ok_or_else(|| SetupError::NoKernel {
            name: kernel.to_string(),
            kernels: entries.iter().map(|n| n.to_string()).collect(),
        })
}

fn bind_args<'a>(
    func: &program::Func,
    kernel: &str,
    args: &'a [KernelArg],
) -> Result<Vec<Bound<'a>>, SetupError> {
    if func.kparams.len() != args.len() {
        return Err(SetupError::ArgCount {
            kernel: kernel.to_string(),
            params: func.kparams.len(),
            given: args.len(),
        });
    }
    let mut out = Vec::new();
    for (i, ((pname, ty, size), arg)) in func.kparams.iter().zip(args).enumerate() {
        let tname = format!("{:?}{}", ty.kind, ty.bits).to_lowercase();
        let tname = if ty.kind == Kind::Pred {
            "pred".to_string()
        } else {
            tname
        };
        let mismatch = |given: GivenArg| SetupError::ArgMismatch {
            index: i,
            kernel: kernel.to_string(),
            param: pname.clone(),
            param_type: tname.clone(),
            param_bytes: *size,
            given,
        };
        out.push(match arg {
            KernelArg::Buffer(data) if *size == 8 && ty.bits == 64 && !ty.is_float() => {
                if data.len() as u64 >= 1 << 32 {
                    return Err(SetupError::BufferTooLarge { index: i });
                }
                Bound::Buffer(data)
            }
            KernelArg::Buffer(data) if ty.bits == 8 && data.len() as u64 == *size => {
                Bound::Bytes(data.clone())
            }
            KernelArg::Texture(res) if *size == 8 && ty.bits == 64 && !ty.is_float() => {
                res.check()
                    .map_err(|reason| SetupError::BadTexture { index: i, reason })?;
                Bound::Texture(res)
            }
            KernelArg::TensorMap(map) if ty.bits == 8 && *size == tma::TENSOR_MAP_BYTES as u64 => {
                Bound::TensorMap(map)
            }
            KernelArg::TensorMap(_) => return Err(mismatch(GivenArg::TensorMap)),
            KernelArg::Texture(_) => return Err(mismatch(GivenArg::Texture)),
            KernelArg::Buffer(data) => {
                return Err(mismatch(GivenArg::Buffer { bytes: data.len() }))
            }
            KernelArg::Scalar {
                bits,
                bytes: n,
                float,
                name,
            } => {
                let fits = u64::from(*n) == *size
                    && match ty.kind {
                        Kind::F | Kind::BF => *float,
                        Kind::B => true,
                        _ => !*float,
                    };
                if !fits {
                    return Err(mismatch(GivenArg::Scalar {
                        type_name: name.clone(),
                    }));
                }
                Bound::Bytes(bits.to_le_bytes()[..*n as usize].to_vec())
            }
        });
    }
    Ok(out)
}

/// The parameter bytes of tensor map `map` over the matrix at `base`,
/// after checking the shape as the CUDA driver does.
fn tensor_map_param(map: &TensorMapArg, base: u64) -> Result<Vec<u8>, SetupError> {
    tensor_map_bytes(map, base).map_err(|reason| SetupError::BadTensorMap { reason })
}

fn tensor_map_bytes(map: &TensorMapArg, base: u64) -> Result<Vec<u8>, tma::MapError> {
    let info = tma::MapInfo {
        base,
        elem_bytes: map.elem_bytes,
        cols: map.cols,
        rows: map.rows,
        box_cols: map.box_cols,
        box_rows: map.box_rows,
        row_pitch: u64::from(map.cols) * u64::from(map.elem_bytes),
        swizzle: swizzle::Swizzle::from_bytes(map.swizzle)
            .ok_or(tma::MapError::Swizzle { bytes: map.swizzle })?,
    };
    let elems = u64::from(map.rows) * u64::from(map.cols);
    if map.data.len() as u64 != elems * u64::from(map.elem_bytes) {
        return Err(tma::MapError::DataSize {
            rows: map.rows,
            cols: map.cols,
            bytes: map.data.len(),
        });
    }
    if !info.row_pitch.is_multiple_of(16)
        || !(1..=256).contains(&map.box_rows)
        || !(1..=256).contains(&map.box_cols)
        || !matches!(map.elem_bytes, 1 | 2 | 4 | 8)
    {
        return Err(tma::MapError::Shape {
            row_pitch: info.row_pitch,
            box_rows: map.box_rows,
            box_cols: map.box_cols,
        });
    }
    let row_bytes = map.box_cols * map.elem_bytes;
    if info.swizzle != swizzle::Swizzle::None && row_bytes != info.swizzle.bytes() {
        return Err(tma::MapError::SwizzledRow {
            swizzle: map.swizzle,
            row_bytes,
        });
    }
    Ok(tma::encode(&info))
}

/// Writes the generic address of each variable a module variable's
/// initializer names (`generic(arr)+4`) into that variable's bytes, now
/// that the launch has placed every variable.
fn resolve_relocs(
    vars: &[program::Var],
    var_loc: &[(Space, usize)],
    global: &mut [Alloc],
    constant: &mut [Alloc],
) -> Result<(), SetupError> {
    for (v, &(space, index)) in vars.iter().zip(var_loc) {
        for r in &v.relocs {
            let target = vars
                .iter()
                .position(|t| t.name == r.symbol)
                .ok_or_else(|| SetupError::UnknownInitializerSymbol {
                    var: v.name.clone(),
                    symbol: r.symbol.clone(),
                })?;
            let (t_space, t_index) = var_loc[target];
            let addr = memory::generic(t_space, t_index, r.addend);
            let bytes = match space {
                Space::Global => &mut global[index].bytes,
                Space::Const => &mut constant[index].bytes,
                _ => continue,
            };
            let at = r.offset as usize;
            bytes[at..at + 8].copy_from_slice(&addr.to_le_bytes());
        }
    }
    Ok(())
}

fn check_dims(what: &'static str, dims: [u32; 3], max: [u32; 3]) -> Result<(), SetupError> {
    for (axis, (&value, &max)) in dims.iter().zip(&max).enumerate() {
        if value == 0 || value > max {
            return Err(SetupError::Dimension {
                what,
                axis,
                value,
                max,
            });
        }
    }
    Ok(())
}

/// The bytes of the module's `.shared` variables, but for the dynamic one.
fn static_shared_bytes(prog: &Program) -> u64 {
    prog.vars
        .iter()
        .filter(|v| v.space == Space::Shared && !v.dynamic)
        .map(|v| v.size)
        .sum()
}

/// Binds the arguments and places the module variables.
fn setup(
    prog: &Program,
    kid: usize,
    args: &[KernelArg],
    config: &LaunchConfig,
) -> Result<Setup, SetupError> {
    let func = &prog.funcs[kid];
    let kernel = func.name.as_str();
    if !func.has_body {
        return Err(SetupError::NoBody {
            kernel: kernel.to_string(),
        });
    }
    check_dims("grid", config.grid, [i32::MAX as u32, 65535, 65535])?;
    check_dims("block", config.block, [1024, 1024, 64])?;
    let threads: u64 = config.block.iter().map(|&d| u64::from(d)).product();
    if threads > 1024 {
        return Err(SetupError::TooManyThreads { threads });
    }
    let mut global = Vec::new();
    let mut kparams = Vec::new();
    let mut buffer_slots = Vec::new();
    let mut textures = Vec::new();
    let mut texture_slots = Vec::new();
    for (i, ((pname, _, _), bound)) in func
        .kparams
        .iter()
        .zip(bind_args(func, kernel, args)?)
        .enumerate()
    {
        let bytes = match bound {
            Bound::Buffer(data) => {
                global.push(Alloc::new(format!("global buffer arg{i}"), data.to_vec()));
                let addr = memory::generic(Space::Global, global.len() - 1, 0);
                buffer_slots.push(Some(global.len() - 1));
                texture_slots.push(None);
                addr.to_le_bytes().to_vec()
            }
            Bound::Bytes(bytes) => {
                buffer_slots.push(None);
                texture_slots.push(None);
                bytes
            }
            Bound::Texture(res) => {
                buffer_slots.push(None);
                textures.push(res.clone());
                texture_slots.push(Some(textures.len() - 1));
                (textures.len() as u64).to_le_bytes().to_vec()
            }
            Bound::TensorMap(map) => {
                global.push(Alloc::new(
                    format!("global tensor arg{i}"),
                    map.data.clone(),
                ));
                buffer_slots.push(Some(global.len() - 1));
                texture_slots.push(None);
                tensor_map_param(map, memory::generic(Space::Global, global.len() - 1, 0))?
            }
        };
        let mut a = Alloc::new(format!("parameter {pname}"), bytes);
        a.read_only = true;
        kparams.push(a);
    }

    let total = static_shared_bytes(prog) + u64::from(config.dynamic_shared_bytes);
    if total > 227 * 1024 {
        return Err(SetupError::TooMuchSharedMemory { bytes: total });
    }
    let mut constant = Vec::new();
    let mut shared_template = Vec::new();
    let mut dynamic = None;
    let mut var_loc = Vec::new();
    let mut shared_aligns = Vec::new();
    for v in &prog.vars {
        let loc = match v.space {
            Space::Shared if v.dynamic => {
                let idx = *dynamic.get_or_insert_with(|| {
                    shared_template.push(Alloc::new(
                        "dynamic shared memory",
                        vec![0; config.dynamic_shared_bytes as usize],
                    ));
                    shared_aligns.push(v.align);
                    shared_template.len() - 1
                });
                (Space::Shared, idx)
            }
            Space::Shared => {
                shared_template.push(Alloc::new(v.name.clone(), v.init.clone()));
                shared_aligns.push(v.align);
                (Space::Shared, shared_template.len() - 1)
            }
            Space::Global => {
                global.push(Alloc::new(v.name.clone(), v.init.clone()));
                (Space::Global, global.len() - 1)
            }
            Space::Const => {
                let mut a = Alloc::new(v.name.clone(), v.init.clone());
                a.read_only = true;
                constant.push(a);
                (Space::Const, constant.len() - 1)
            }
            Space::Local | Space::Param => {
                return Err(SetupError::ModuleVariable {
                    space: v.space.name(),
                    name: v.name.clone(),
                })
            }
        };
        var_loc.push(loc);
    }
    let workspace = prog.reads_envreg(kid).then(|| {
        let zeroed = vec![0; cooperative::WORKSPACE_BYTES];
        global.push(Alloc::new(
            "the grid workspace of the cooperative launch",
            zeroed,
        ));
        memory::generic(Space::Global, global.len() - 1, 0)
    });
    if shared_template.len() > memory::BLOCK_SHARED_ALLOCS
        || constant.len() > memory::MAX_SPACE_ALLOCS
        || global.len() > 0xfffe
    {
        return Err(SetupError::TooManyVariables);
    }
    resolve_relocs(&prog.vars, &var_loc, &mut global, &mut constant)?;
    let shared_base = memory::shared_window(&shared_template, &shared_aligns);
    Ok(Setup {
        kernel: kid,
        global,
        constant,
        kparams,
        shared_template,
        var_loc,
        buffer_slots,
        textures,
        texture_slots,
        cluster: [1; 3],
        shared_base,
        workspace,
    })
}
