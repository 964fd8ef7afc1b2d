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
//!   `.reqnctapercluster` is a cluster of one); the blocks of a cluster
//!   run together, and in each, every thread runs until it reaches a
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

pub mod decode;
mod exec;
pub mod lineinfo;
pub mod memory;
pub mod ops;
pub mod program;
pub mod rounding;
pub mod tma;

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
    Load(String),
    /// The launch is wrong (unknown kernel, arguments that do not fit).
    Setup(String),
    Fault(Box<Fault>),
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::Load(m) | RunError::Setup(m) => f.write_str(m),
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
}

/// Parses `src` and runs `kernel` with `args` over `config`.
pub fn run_ptx(
    src: &str,
    kernel: &str,
    args: &[KernelArg],
    config: &LaunchConfig,
) -> Result<RunOutput, RunError> {
    let module = ptx_validate::parser::parse(src)
        .map_err(|d| RunError::Load(format!("PTX line {}: {}", d.pos.line, d.msg)))?;
    let prog = program::build(src, &module).map_err(RunError::Load)?;
    let kid = find_kernel(&prog, kernel).map_err(RunError::Setup)?;
    if let Some(e) = prog.reachable_load_error(kid) {
        return Err(RunError::Load(e.to_string()));
    }
    let mut setup = setup(&prog, kid, args, config).map_err(RunError::Setup)?;
    setup.cluster = cluster_shape(&module, &prog.funcs[kid].name);
    check_cluster(setup.cluster, config.grid).map_err(RunError::Setup)?;
    exec::run(&prog, setup, config).map_err(|e| match e {
        RunError::Fault(mut f) => {
            f.source = source_position(src, f.start);
            RunError::Fault(f)
        }
        other => other,
    })
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
    pub error: Option<String>,
}

/// Every instruction of every function body of `src`, decoded as a launch
/// would decode it: what the emulator can run and what it cannot, for
/// coverage reports. Fails as [`run_ptx`] does on PTX that does not parse
/// or names something undeclared.
pub fn decode_module(src: &str) -> Result<Vec<DecodedInst>, RunError> {
    let module = ptx_validate::parser::parse(src)
        .map_err(|d| RunError::Load(format!("PTX line {}: {}", d.pos.line, d.msg)))?;
    let prog = program::build(src, &module).map_err(RunError::Load)?;
    Ok(prog
        .funcs
        .iter()
        .flat_map(|f| {
            f.insts.iter().map(|i| DecodedInst {
                function: f.name.clone(),
                name: i.name.clone(),
                line: i.pos.line,
                error: match &i.op {
                    decode::Op::Invalid(msg) => Some(msg.clone()),
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
fn check_cluster(cluster: [u32; 3], grid: [u32; 3]) -> Result<(), String> {
    let blocks: u64 = cluster.iter().map(|&d| u64::from(d)).product();
    let dims = cluster.map(|d| d.to_string()).join(", ");
    if blocks == 0 || blocks > u64::from(memory::MAX_CLUSTER_BLOCKS) {
        return Err(format!(
            "a cluster of {blocks} blocks (`.reqnctapercluster {dims}`): a cluster has 1 to {} blocks",
            memory::MAX_CLUSTER_BLOCKS
        ));
    }
    for (i, (&g, &c)) in grid.iter().zip(&cluster).enumerate() {
        if g % c != 0 {
            return Err(format!(
                "grid dimension {} is {g}, which is not a multiple of the cluster's {c} (`.reqnctapercluster {dims}`)",
                ["x", "y", "z"][i]
            ));
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
    let mut module = ptx_validate::parser::parse(src)
        .map_err(|d| RunError::Load(format!("PTX line {}: {}", d.pos.line, d.msg)))?;
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
    let prog = program::build(src, &module).map_err(RunError::Load)?;
    let func = find_kernel(&prog, kernel).map_err(RunError::Setup)?;
    bind_args(&prog.funcs[func], kernel, args).map_err(RunError::Setup)
}

/// The index of the `.entry` named `kernel` (or of the one kernel whose
/// plain name it is).
fn find_kernel(prog: &Program, kernel: &str) -> Result<usize, String> {
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
            return Err(stdx::itanium::ambiguity(kernel, &k))
        }
        stdx::itanium::KernelLookup::Missing => kernel,
    };
    prog.funcs
        .iter()
        .position(|f| f.name == name && f.kind == ptx_validate::ast::FuncKind::Entry)
        .ok_or_else(|| {
            format!(
                "no kernel (`.entry`) named `{kernel}` in the PTX (kernels: {})",
                if entries.is_empty() {
                    "none".to_string()
                } else {
                    entries.join(", ")
                }
            )
        })
}

fn bind_args<'a>(
    func: &program::Func,
    kernel: &str,
    args: &'a [KernelArg],
) -> Result<Vec<Bound<'a>>, String> {
    if func.kparams.len() != args.len() {
        let n = func.kparams.len();
        return Err(format!(
            "kernel `{kernel}` takes {n} argument{}, but {} {} given",
            if n == 1 { "" } else { "s" },
            args.len(),
            if args.len() == 1 { "was" } else { "were" }
        ));
    }
    let mut out = Vec::new();
    for (i, ((pname, ty, size), arg)) in func.kparams.iter().zip(args).enumerate() {
        let tname = format!("{:?}{}", ty.kind, ty.bits).to_lowercase();
        let tname = if ty.kind == Kind::Pred {
            "pred".to_string()
        } else {
            tname
        };
        out.push(match arg {
            KernelArg::Buffer(data) if *size == 8 && ty.bits == 64 && !ty.is_float() => {
                if data.len() as u64 >= 1 << 32 {
                    return Err(format!("argument {i}: a buffer must be under 4 GiB"));
                }
                Bound::Buffer(data)
            }
            KernelArg::Buffer(data) if ty.bits == 8 && data.len() as u64 == *size => {
                Bound::Bytes(data.clone())
            }
            KernelArg::Texture(res) if *size == 8 && ty.bits == 64 && !ty.is_float() => {
                res.check().map_err(|m| format!("argument {i}: {m}"))?;
                Bound::Texture(res)
            }
            KernelArg::TensorMap(map) if ty.bits == 8 && *size == tma::TENSOR_MAP_BYTES as u64 => {
                Bound::TensorMap(map)
            }
            KernelArg::TensorMap(_) => {
                return Err(format!(
                    "argument {i}: parameter {i} of `{kernel}` (`{pname}`) is a .{tname} of {size} bytes, which a tensor map (a 128-byte by-value `CUtensorMap`) cannot be bound to"
                ))
            }
            KernelArg::Texture(_) => {
                return Err(format!(
                    "argument {i}: parameter {i} of `{kernel}` (`{pname}`) is a .{tname} of {size} bytes, which a texture or surface object (a 64-bit handle) cannot be bound to"
                ))
            }
            KernelArg::Buffer(data) => {
                return Err(format!(
                    "argument {i}: parameter {i} of `{kernel}` (`{pname}`) is a .{tname} of {size} bytes, which a buffer of {} bytes cannot be bound to",
                    data.len()
                ))
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
                    return Err(format!(
                        "argument {i}: parameter {i} of `{kernel}` (`{pname}`) has type .{tname}, but a {name} was given"
                    ));
                }
                Bound::Bytes(bits.to_le_bytes()[..*n as usize].to_vec())
            }
        });
    }
    Ok(out)
}

/// The parameter bytes of tensor map `map` over the matrix at `base`,
/// after checking the shape as the CUDA driver does.
fn tensor_map_param(map: &TensorMapArg, base: u64) -> Result<Vec<u8>, String> {
    let info = tma::MapInfo {
        base,
        elem_bytes: map.elem_bytes,
        cols: map.cols,
        rows: map.rows,
        box_cols: map.box_cols,
        box_rows: map.box_rows,
        row_pitch: u64::from(map.cols) * u64::from(map.elem_bytes),
    };
    let elems = u64::from(map.rows) * u64::from(map.cols);
    if map.data.len() as u64 != elems * u64::from(map.elem_bytes) {
        return Err(format!(
            "a tensor map of {} x {} elements over {} bytes",
            map.rows,
            map.cols,
            map.data.len()
        ));
    }
    if !info.row_pitch.is_multiple_of(16)
        || !(1..=256).contains(&map.box_rows)
        || !(1..=256).contains(&map.box_cols)
        || !matches!(map.elem_bytes, 1 | 2 | 4 | 8)
    {
        return Err(format!(
            "a tensor map with rows of {} bytes and boxes of {} x {} elements: the row pitch must be a multiple of 16 bytes and each box side 1 to 256 elements",
            info.row_pitch, map.box_rows, map.box_cols
        ));
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
) -> Result<(), String> {
    for (v, &(space, index)) in vars.iter().zip(var_loc) {
        for r in &v.relocs {
            let target = vars
                .iter()
                .position(|t| t.name == r.symbol)
                .ok_or_else(|| {
                    format!(
                        "the initializer of `{}` names `{}`, which is no variable",
                        v.name, r.symbol
                    )
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

fn check_dims(what: &str, dims: [u32; 3], max: [u32; 3]) -> Result<(), String> {
    for (i, (&d, &m)) in dims.iter().zip(&max).enumerate() {
        if d == 0 || d > m {
            return Err(format!(
                "{what} dimension {} is {d}; it must be between 1 and {m}",
                ["x", "y", "z"][i]
            ));
        }
    }
    Ok(())
}

/// Binds the arguments and places the module variables.
fn setup(
    prog: &Program,
    kid: usize,
    args: &[KernelArg],
    config: &LaunchConfig,
) -> Result<Setup, String> {
    let func = &prog.funcs[kid];
    let kernel = func.name.as_str();
    if !func.has_body {
        return Err(format!("kernel `{kernel}` has no body"));
    }
    check_dims("grid", config.grid, [i32::MAX as u32, 65535, 65535])?;
    check_dims("block", config.block, [1024, 1024, 64])?;
    let threads: u64 = config.block.iter().map(|&d| u64::from(d)).product();
    if threads > 1024 {
        return Err(format!(
            "a block of {threads} threads is more than the 1024 CUDA allows"
        ));
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

    let static_shared: u64 = prog
        .vars
        .iter()
        .filter(|v| v.space == Space::Shared && !v.dynamic)
        .map(|v| v.size)
        .sum();
    let total = static_shared + u64::from(config.dynamic_shared_bytes);
    if total > 227 * 1024 {
        return Err(format!(
            "the block needs {total} bytes of shared memory, more than the 232448 a GPU offers"
        ));
    }
    let mut constant = Vec::new();
    let mut shared_template = Vec::new();
    let mut dynamic = None;
    let mut var_loc = Vec::new();
    for v in &prog.vars {
        let loc = match v.space {
            Space::Shared if v.dynamic => {
                let idx = *dynamic.get_or_insert_with(|| {
                    shared_template.push(Alloc::new(
                        "dynamic shared memory",
                        vec![0; config.dynamic_shared_bytes as usize],
                    ));
                    shared_template.len() - 1
                });
                (Space::Shared, idx)
            }
            Space::Shared => {
                shared_template.push(Alloc::new(v.name.clone(), v.init.clone()));
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
                return Err(format!(
                    "module-scope .{} variable `{}` is not supported by the emulator",
                    v.space.name(),
                    v.name
                ))
            }
        };
        var_loc.push(loc);
    }
    if shared_template.len() > memory::BLOCK_SHARED_ALLOCS
        || constant.len() > memory::MAX_SPACE_ALLOCS
        || global.len() > 0xfffe
    {
        return Err("too many variables for the emulator's address windows".into());
    }
    resolve_relocs(&prog.vars, &var_loc, &mut global, &mut constant)?;
    let shared_base = memory::shared_window(&shared_template);
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
    })
}
