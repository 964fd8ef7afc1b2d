//! kir-interp, the interpreter for kernelc's IR: runs one kernel of a
//! [`Module`] over a grid of blocks of threads, with the memory spaces of
//! the PTX model kept apart. It is a crate of its own beside the midend:
//! it depends on the midend's IR, and the optimizer never on it.
//!
//! It is the reference the rest of the compiler is checked against: the
//! same kernel at `-O0` and `-O3` must leave the same bytes in memory, and a
//! PTX emulator or a real GPU (later engines) must agree with it. So its
//! semantics are the ones the NVPTX backend gives each opcode in PTX (see
//! [`eval`] for the arithmetic), and anything a GPU would leave undefined —
//! an out-of-bounds access, an access through the wrong space, a barrier
//! only part of a block reaches — is reported as a [`Fault`] naming the
//! instruction, its source span and the thread, instead of guessed at.
//!
//! How threads run: the blocks of the grid run one after another (x fastest,
//! then y, then z). Inside a block, each thread runs (in `tid` order, x
//! fastest) until it reaches a `barrier` or returns; when every thread has
//! stopped, either all wait at a barrier and are released together, or all
//! have returned and the block is done. Anything else is barrier divergence.
//! A kernel that can reach `grid_barrier` runs as a cooperative launch (at
//! most [`MAX_COOPERATIVE_BLOCKS`] blocks, all resident): a block whose
//! threads all wait at the grid barrier parks with its shared memory and
//! the next block runs; when every block has parked, all are released, in
//! the same order. A block that returns while others are parked is grid
//! barrier divergence.
//! Each thread's state (its call stack of frames) is explicit data, so a
//! thread can stop at a barrier inside a called function and resume later.
//!
//! Memory: see [`memory`] for the address windows. Global buffers and module
//! variables live for the whole launch; shared memory is fresh (zero-filled)
//! for every block; each call frame gets fresh zero-filled stack slots that
//! disappear when it returns. Filling with zeros where a GPU leaves garbage
//! keeps runs deterministic.
//!
//! The interpreter expects verified IR and never panics on it; on IR the
//! verifier would reject it reports an internal fault rather than panicking
//! wherever that is cheap to do.

pub mod eval;
mod exec;
pub mod ftz;
pub mod memory;
mod rounding;
mod setup_error;

use memory::{Alloc, GridMemory};
use midend::ir::{AddrSpace, FuncId, Inst, Module, RelocTarget, SourceSpan, Type};
pub use setup_error::{Dims, Given, SetupError};

/// The launch: grid and block shape, dynamic shared memory, and the limits
/// that keep a broken kernel from running forever.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LaunchConfig {
    /// Blocks per grid, `[x, y, z]` (`gridDim`).
    pub grid: [u32; 3],
    /// Threads per block, `[x, y, z]` (`blockDim`).
    pub block: [u32; 3],
    /// Bytes of dynamic shared memory (`extern __shared__`), the third
    /// launch parameter of `<<<...>>>`.
    pub dynamic_shared_bytes: u32,
    /// The most instructions one thread may execute: the guard against
    /// infinite loops.
    pub max_steps_per_thread: u64,
    /// The most instructions all the threads of the launch may execute
    /// together (`kernelc run --max-steps`): the guard against a grid too
    /// large to finish. `u64::MAX`: no bound.
    pub max_steps_per_launch: u64,
    /// The deepest call stack, counting the kernel's own frame.
    pub max_call_depth: usize,
    /// Report shared-memory races between barriers as faults
    /// (`kernelc run --racecheck`, [`race`]).
    pub racecheck: bool,
}

impl Default for LaunchConfig {
    fn default() -> Self {
        LaunchConfig {
            grid: [1, 1, 1],
            block: [1, 1, 1],
            dynamic_shared_bytes: 0,
            max_steps_per_thread: DEFAULT_MAX_STEPS,
            max_steps_per_launch: u64::MAX,
            max_call_depth: DEFAULT_MAX_CALL_DEPTH,
            racecheck: false,
        }
    }
}

/// Default step limit per thread.
pub const DEFAULT_MAX_STEPS: u64 = 10_000_000;
/// Default call-depth limit.
pub const DEFAULT_MAX_CALL_DEPTH: usize = 64;
/// CUDA's limit on threads per block.
pub const MAX_THREADS_PER_BLOCK: u64 = 1024;
/// The most shared memory one block may use (227 KiB, the sm_90 opt-in maximum).
pub const MAX_SHARED_BYTES: u64 = 227 * 1024;
/// The most blocks of a cooperative launch (a kernel that reaches
/// `grid_barrier`). A GPU refuses a cooperative launch of more blocks than
/// it can keep resident at once (an H100's 132 SMs hold at most 32 small
/// blocks each); the interpreter keeps every block's threads and shared
/// memory at once, and draws the line at this round number below what any
/// GPU kernelc targets holds for small blocks.
pub const MAX_COOPERATIVE_BLOCKS: u64 = 1024;
/// The most local memory one thread may use (CUDA's 512 KiB).
pub const MAX_LOCAL_BYTES: u64 = 512 * 1024;

/// One kernel argument.
#[derive(Clone, Debug, PartialEq)]
pub enum KernelArg {
    /// A scalar of exactly the parameter's type, as bits (see [`eval`]).
    Scalar { ty: Type, bits: u64 },
    /// A buffer, bound to a pointer parameter: a `ptr<global>` or
    /// `ptr<generic>` parameter gets a global allocation, a `ptr<const>` one
    /// a constant-bank allocation and a `ptr<param>` one (a by-value
    /// aggregate) a read-only parameter allocation.
    Buffer(Vec<u8>),
    /// A texture or surface object (`stdx::texture`), bound to an `i64`
    /// parameter as its handle; the launch's output holds its final
    /// elements.
    Texture(stdx::texture::Resource),
}

/// What a finished launch leaves behind.
#[derive(Clone, Debug, PartialEq)]
pub struct RunOutput {
    /// The final contents of each buffer argument, `None` for scalars.
    pub buffers: Vec<Option<Vec<u8>>>,
    /// Instructions executed, over all threads.
    pub steps: u64,
    /// What the kernel's `printf` calls printed, in the order they ran (the
    /// PTX emulator's order), at most `stdx::printf::PRINTF_LIMIT` bytes.
    pub printed: Vec<u8>,
}

/// The kind of a fault, for programs that react to it (tests, later engines).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum FaultKind {
    OutOfBounds,
    /// Access through a pointer whose type names another space than the one
    /// its address is in, or a forged address.
    WrongSpace,
    Misaligned,
    NullPointer,
    /// Access to a stack slot of a call that has returned.
    Dangling,
    ReadOnly,
    BarrierDivergence,
    StepLimit,
    CallDepth,
    /// Local or shared memory beyond the hardware's limits.
    OutOfMemory,
    Trap,
    /// A shared-memory race between barriers (`--racecheck`).
    Race,
    /// An operation the interpreter does not model (a TMA copy, which needs
    /// a real tensor map; memory of another block of a cluster).
    Unsupported,
    /// IR the verifier would have rejected.
    Internal,
}

/// A second place a fault is about (the other access of a race).
#[derive(Clone, Debug, PartialEq)]
pub struct RelatedSite {
    /// The instruction's source span, when it has one.
    pub span: Option<SourceSpan>,
    pub function: String,
    pub inst: Inst,
    /// What happened there.
    pub message: String,
}

/// A run-time error of the kernel, located at an instruction of a thread.
#[derive(Clone, Debug, PartialEq)]
pub struct Fault {
    pub kind: FaultKind,
    pub message: String,
    pub kernel: String,
    /// The function executing (the kernel or a device function it called).
    pub function: String,
    pub inst: Option<Inst>,
    /// The instruction's source span, when it has one.
    pub span: Option<SourceSpan>,
    /// `ctaid` of the faulting block.
    pub block: [u32; 3],
    /// `tid` of the faulting thread.
    pub thread: [u32; 3],
    /// Extra lines (e.g. which threads had returned at a divergent barrier).
    pub notes: Vec<String>,
    /// The other access of a race.
    pub related: Option<RelatedSite>,
}

impl std::fmt::Display for Fault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.message)?;
        let [bx, by, bz] = self.block;
        let [tx, ty, tz] = self.thread;
        write!(
            f,
            " (kernel `{}`, block ({bx},{by},{bz}), thread ({tx},{ty},{tz})",
            self.kernel
        )?;
        if self.function != self.kernel {
            write!(f, ", in `{}`", self.function)?;
        }
        if let Some(inst) = self.inst {
            write!(f, ", at {inst}")?;
        }
        if let Some(s) = self.span {
            write!(f, ", source bytes {}..{}", s.start, s.end)?;
        }
        write!(f, ")")
    }
}

/// Why a launch did not complete.
#[derive(Clone, Debug, PartialEq)]
pub enum RunError {
    /// The launch itself is wrong (unknown kernel, arguments that do not fit
    /// the parameters, a bad grid): nothing ran.
    Setup(SetupError),
    /// The kernel faulted while running.
    Fault(Box<Fault>),
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::Setup(e) => write!(f, "{e}"),
            RunError::Fault(fault) => write!(f, "{fault}"),
        }
    }
}

impl std::error::Error for RunError {}

/// The kernel whose plain name is `name` (`vectorAdd` for nvcc's and
/// kernelc's `_Z9vectorAddPKfS0_Pfi`), when exactly one has it.
fn kernel_by_plain_name(module: &Module, name: &str) -> Result<Option<FuncId>, SetupError> {
    let kernels: Vec<&str> = module
        .functions
        .values()
        .filter(|f| f.is_kernel())
        .map(|f| f.name.as_str())
        .collect();
    match stdx::itanium::lookup_kernel(name, &kernels) {
        stdx::itanium::KernelLookup::Found(k) => Ok(module.function_by_name(k)),
        stdx::itanium::KernelLookup::Missing => Ok(None),
        stdx::itanium::KernelLookup::Ambiguous(k) => Err(SetupError::AmbiguousKernel {
            name: name.to_string(),
            kernels: k.iter().map(|k| k.to_string()).collect(),
        }),
    }
}

/// Runs kernel `kernel` of `module` with `args` over the launch `config`.
/// `kernel` is its name in the module, or its plain name when no other
/// kernel has that (`vectorAdd` for `_Z9vectorAddPKfS0_Pfi`).
pub fn run_kernel(
    module: &Module,
    kernel: &str,
    args: &[KernelArg],
    config: &LaunchConfig,
) -> Result<RunOutput, RunError> {
    let setup = Setup::new(module, kernel, args, config).map_err(RunError::Setup)?;
    exec::run(module, setup, config)
}

/// Everything prepared before the first thread runs.
pub(crate) struct Setup {
    pub kernel: FuncId,
    pub grid_mem: GridMemory,
    /// The address of each module global (indexed by `gv` number).
    pub global_addrs: Vec<u64>,
    /// Shared memory as a fresh block sees it.
    pub shared_template: Vec<Alloc>,
    /// The bits of each kernel parameter.
    pub param_bits: Vec<u64>,
    /// For each argument: where its buffer lives, to read it back at the end.
    pub buffer_slots: Vec<Option<(AddrSpace, usize)>>,
    /// The texture and surface objects: handle `k + 1` is `textures[k]`.
    pub textures: Vec<stdx::texture::Resource>,
    /// For each argument, its texture, if it is one.
    pub texture_slots: Vec<Option<usize>>,
    /// The kernel reaches the grid barrier: a cooperative launch, whose
    /// blocks all stay resident (see the crate doc).
    pub cooperative: bool,
}

/// Writes the addresses that module variables' initializers hold (see
/// [`midend::ir::Reloc`]), now that every variable has its address
/// (`global_addrs`, by variable number): a variable's is its generic
/// address (the interpreter's addresses are the same in every space's
/// view), a function's is what `func_addr` gives it.
fn write_initial_addresses(module: &Module, global_addrs: &[u64], grid_mem: &mut GridMemory) {
    for (gv, data) in module.globals.iter() {
        let Some(at) = memory::decode(global_addrs[gv.as_u32() as usize]) else {
            continue;
        };
        let list = match at.space {
            AddrSpace::Global => &mut grid_mem.global,
            AddrSpace::Const => &mut grid_mem.constant,
            AddrSpace::Param => &mut grid_mem.param,
            // The verifier lets no other space have an initializer.
            _ => continue,
        };
        let bytes = &mut list[at.index].bytes;
        for r in &data.relocs {
            let value = match r.target {
                RelocTarget::Global(t) => {
                    global_addrs[t.as_u32() as usize].wrapping_add(r.addend as u64)
                }
                RelocTarget::Func(f) => memory::function_addr(f.as_u32() as usize),
            };
            let start = r.offset as usize;
            if let Some(word) = bytes.get_mut(start..start + 8) {
                word.copy_from_slice(&value.to_le_bytes());
            }
        }
    }
}

fn check_dims(of: Dims, dims: [u32; 3], max: [u32; 3]) -> Result<(), SetupError> {
    for (axis, (&value, &max)) in dims.iter().zip(max.iter()).enumerate() {
        if value == 0 || value > max {
            return Err(SetupError::Dimension {
                of,
                axis,
                value,
                max,
            });
        }
    }
    Ok(())
}

impl Setup {
    // Long: the launch's setup in order (each argument bound to its
    // parameter, with an error for each kind of mismatch; shared memory
    // sized; the module's variables placed), filling the same tables.
    fn new(
        module: &Module,
        kernel: &str,
        args: &[KernelArg],
        config: &LaunchConfig,
    ) -> Result<Setup, SetupError> {
        let kid = match module.function_by_name(kernel) {
            Some(kid) => Some(kid),
            None => kernel_by_plain_name(module, kernel)?,
        };
        let Some(kid) = kid else {
            let kernels = module
                .functions
                .values()
                .filter(|f| f.is_kernel())
                .map(|f| f.name.clone())
                .collect();
            return Err(SetupError::NoSuchKernel {
                name: kernel.to_string(),
                kernels,
            });
        };
        let func = &module.functions[kid];
        if !func.is_kernel() {
            return Err(SetupError::NotAKernel {
                name: kernel.to_string(),
            });
        }
        if func.entry_block().is_none() {
            return Err(SetupError::NoBody {
                name: kernel.to_string(),
            });
        }
        check_dims(Dims::Grid, config.grid, [i32::MAX as u32, 65535, 65535])?;
        check_dims(Dims::Block, config.block, [1024, 1024, 64])?;
        let threads: u64 = config.block.iter().map(|&d| u64::from(d)).product();
        if threads > MAX_THREADS_PER_BLOCK {
            return Err(SetupError::TooManyThreads { threads });
        }
        let cooperative = module.reaches_grid_barrier(kid);
        let blocks: u64 = config.grid.iter().map(|&d| u64::from(d)).product();
        if cooperative && blocks > MAX_COOPERATIVE_BLOCKS {
            return Err(SetupError::CooperativeGrid { blocks });
        }
        let params = &func.signature.params;
        if params.len() != args.len() {
            return Err(SetupError::ArgumentCount {
                kernel: kernel.to_string(),
                params: params.len(),
                args: args.len(),
            });
        }

        let mut grid_mem = GridMemory::default();
        let mut param_bits = Vec::new();
        let mut buffer_slots = Vec::new();
        let mut textures = Vec::new();
        let mut texture_slots = Vec::new();
        for (i, (param, arg)) in params.iter().zip(args).enumerate() {
            let mismatch = |given| SetupError::Mismatch {
                index: i,
                kernel: kernel.to_string(),
                param: param.ty,
                given,
            };
            texture_slots.push(None);
            match (param.ty, arg) {
                (Type::I64, KernelArg::Texture(res)) => {
                    res.check()
                        .map_err(|reason| SetupError::Texture { index: i, reason })?;
                    textures.push(res.clone());
                    param_bits.push(textures.len() as u64);
                    buffer_slots.push(None);
                    texture_slots[i] = Some(textures.len() - 1);
                }
                (_, KernelArg::Texture(_)) => return Err(mismatch(Given::Texture)),
                (Type::Ptr(space), KernelArg::Buffer(bytes)) => {
                    if bytes.len() as u64 >= memory::MAX_ALLOC_BYTES {
                        return Err(SetupError::BufferTooLarge { index: i });
                    }
                    let list = match space {
                        AddrSpace::Global | AddrSpace::Generic => &mut grid_mem.global,
                        AddrSpace::Const => &mut grid_mem.constant,
                        AddrSpace::Param => &mut grid_mem.param,
                        _ => return Err(mismatch(Given::Buffer)),
                    };
                    let space = if space == AddrSpace::Generic {
                        AddrSpace::Global
                    } else {
                        space
                    };
                    let index = list.len();
                    list.push(Alloc::new(format!("buffer arg{i}"), bytes.clone()));
                    param_bits.push(memory::make_addr(space, index, 0));
                    buffer_slots.push(Some((space, index)));
                }
                (Type::Ptr(_), KernelArg::Scalar { ty, .. }) => {
                    return Err(mismatch(Given::Scalar(*ty)))
                }
                (_, KernelArg::Buffer(_)) => return Err(mismatch(Given::Buffer)),
                (pty, KernelArg::Scalar { ty, bits }) => {
                    if pty != *ty {
                        return Err(mismatch(Given::Scalar(*ty)));
                    }
                    param_bits.push(bits & eval::mask(pty.bits()));
                    buffer_slots.push(None);
                }
            }
        }

        // Shared memory is sized before anything is allocated, so a huge
        // request is an error, not an allocation failure.
        let is_shared = |s| matches!(s, AddrSpace::Shared | AddrSpace::SharedCluster);
        let static_shared: u64 = module
            .globals
            .values()
            .filter(|g| is_shared(g.space) && !g.dynamic)
            .map(|g| u64::from(g.size))
            .sum();
        let shared_total = static_shared + u64::from(config.dynamic_shared_bytes);
        if shared_total > MAX_SHARED_BYTES {
            return Err(SetupError::SharedMemory {
                bytes: shared_total,
            });
        }

        // Module variables. Every dynamic shared variable starts at the same
        // address, as `extern __shared__` arrays do in CUDA.
        let mut shared_template = Vec::new();
        let mut dynamic_index = None;
        let mut global_addrs = Vec::new();
        for (gv, data) in module.globals.iter() {
            let mut bytes = vec![0u8; data.size as usize];
            if let Some(init) = &data.init {
                let n = init.len().min(bytes.len());
                bytes[..n].copy_from_slice(&init[..n]);
            }
            let name = format!("@{}", data.name);
            let addr = match data.space {
                AddrSpace::Shared | AddrSpace::SharedCluster if data.dynamic => {
                    let index = *dynamic_index.get_or_insert_with(|| {
                        shared_template.push(Alloc::new(
                            "dynamic shared memory",
                            vec![0; config.dynamic_shared_bytes as usize],
                        ));
                        shared_template.len() - 1
                    });
                    memory::make_addr(AddrSpace::Shared, index, 0)
                }
                AddrSpace::Shared | AddrSpace::SharedCluster => {
                    shared_template.push(Alloc::new(name, bytes));
                    memory::make_addr(AddrSpace::Shared, shared_template.len() - 1, 0)
                }
                AddrSpace::Global | AddrSpace::Const | AddrSpace::Param => {
                    let list = match data.space {
                        AddrSpace::Global => &mut grid_mem.global,
                        AddrSpace::Const => &mut grid_mem.constant,
                        _ => &mut grid_mem.param,
                    };
                    list.push(Alloc::new(name, bytes));
                    memory::make_addr(data.space, list.len() - 1, 0)
                }
                space => {
                    return Err(SetupError::UnplacedGlobal {
                        gv,
                        name: data.name.clone(),
                        space,
                    })
                }
            };
            global_addrs.push(addr);
        }
        write_initial_addresses(module, &global_addrs, &mut grid_mem);
        for (space, list) in [
            (AddrSpace::Global, &grid_mem.global),
            (AddrSpace::Const, &grid_mem.constant),
            (AddrSpace::Param, &grid_mem.param),
        ] {
            if list.len() > memory::MAX_ALLOCS {
                return Err(SetupError::TooManyAllocations { space });
            }
        }
        Ok(Setup {
            kernel: kid,
            grid_mem,
            global_addrs,
            shared_template,
            param_bits,
            buffer_slots,
            textures,
            texture_slots,
            cooperative,
        })
    }
}
