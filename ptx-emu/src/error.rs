//! Why a launch does not run: typed, with the facts in fields, so callers
//! match a variant rather than a message. Each `Display` writes the text
//! the emulator has always printed.
//!
//! - [`DecodeError`]: an instruction the emulator cannot run (decoding,
//!   [`crate::decode`]);
//! - [`LoadError`]: a module that does not load (it does not parse, names
//!   something undeclared or unsupported, [`ResolveError`], or the kernel
//!   can reach an instruction that does not decode);
//! - [`SetupError`]: a launch that is refused before any thread runs (the
//!   kernel, the arguments, the grid).
//!
//! Faults while threads run are [`crate::Fault`]s. Their reasons are typed
//! where they are found, beside what they describe, and become the fault's
//! message: [`crate::memory::AddressError`] and
//! [`crate::memory::AccessError`] (an address of the wrong space, an access
//! out of bounds or misaligned), [`crate::tma::MapError`] (a tensor map,
//! which can also refuse a launch) and [`crate::descriptor::DescError`] (a
//! tensor-core descriptor).

use std::fmt;

/// Why one instruction cannot run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DecodeError {
    /// A form, modifier, type or operand shape the emulator does not
    /// implement; `what` names it (`` `tcgen05.cp.cta_group::1.128x256b` ``).
    Unsupported { what: String },
    /// An instruction with fewer operands than the emulator reads.
    MissingOperands {
        inst: String,
        got: usize,
        reads: usize,
    },
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecodeError::Unsupported { what } => {
                write!(f, "{what} is not supported by the emulator")
            }
            DecodeError::MissingOperands { inst, got, reads } => {
                write!(f, "`{inst}` has {got} operands; the emulator reads {reads}")
            }
        }
    }
}

/// Why a module does not load.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LoadError {
    /// ptx-validate's parser refused the text.
    Parse { line: u32, message: String },
    /// A name, declaration or initializer the emulator cannot resolve or
    /// lay out.
    Resolve(ResolveError),
    /// The kernel can reach an instruction at PTX line `line` that does not
    /// decode.
    Instruction { line: u32, error: DecodeError },
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoadError::Parse { line, message } => write!(f, "PTX line {line}: {message}"),
            LoadError::Resolve(error) => write!(f, "{error}"),
            LoadError::Instruction { line, error } => write!(f, "PTX line {line}: {error}"),
        }
    }
}

/// A name, declaration or initializer of a module that the emulator cannot
/// resolve or lay out; `line` is the PTX line of an operand or parameter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ResolveError {
    /// A variable of a type (`.f32`, ...) the emulator does not know.
    VariableType { ty: String },
    /// A variable in a state space it does not place.
    VariableSpace { space: String },
    /// A `.reg` declaration of a type it does not know.
    RegisterType { ty: String },
    /// A parameter of a type it does not know.
    ParameterType { ty: String },
    /// A device function's `.reg` parameter (only `.param` ones are run).
    RegisterParameters { line: u32, function: String },
    /// An initializer names `name` for its address, which is neither a
    /// function nor written `generic(var)`.
    InitializerAddress { name: String },
    /// An initializer's `generic` entry not of the form `generic(name)`.
    GenericEntry,
    /// An operand names no register, label, variable or function.
    UnknownName { line: u32, name: String },
    /// A `symbol+offset` operand of an undeclared symbol.
    UnknownSymbol { line: u32, name: String },
    /// An object address `[..., {...}]` with no handle before the
    /// coordinates.
    ObjectWithoutHandle { line: u32 },
    /// An array element operand `name[...]`.
    ElementOperand { line: u32, name: String },
    /// An instruction guarded by something other than a predicate register.
    GuardNotPredicate { line: u32 },
}

impl fmt::Display for ResolveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ResolveError::VariableType { ty } => write!(f, "unsupported variable type `{ty}`"),
            ResolveError::VariableSpace { space } => {
                write!(f, "variables in `{space}` are not supported by the emulator")
            }
            ResolveError::RegisterType { ty } => {
                write!(f, "registers of type `{ty}` are not supported")
            }
            ResolveError::ParameterType { ty } => write!(f, "unsupported parameter type `{ty}`"),
            ResolveError::RegisterParameters { line, function } => write!(
                f,
                "line {line}: `.reg` parameters of `{function}` are not supported by the emulator"
            ),
            ResolveError::InitializerAddress { name } => write!(
                f,
                "the initializer of a variable uses the address of `{name}`, which the emulator does not support"
            ),
            ResolveError::GenericEntry => {
                f.write_str("an initializer's `generic` entry is not `generic(name)`")
            }
            ResolveError::UnknownName { line, name } => {
                write!(f, "line {line}: unknown name `{name}`")
            }
            ResolveError::UnknownSymbol { line, name } => {
                write!(f, "line {line}: unknown symbol `{name}`")
            }
            ResolveError::ObjectWithoutHandle { line } => {
                write!(f, "line {line}: an object address without a handle")
            }
            ResolveError::ElementOperand { line, name } => write!(
                f,
                "line {line}: the array element operand `{name}[...]` is not supported"
            ),
            ResolveError::GuardNotPredicate { line } => {
                write!(f, "line {line}: the guard is not a predicate register")
            }
        }
    }
}

/// What was given for a kernel parameter it cannot be bound to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GivenArg {
    /// A buffer of this many bytes.
    Buffer {
        bytes: usize,
    },
    Texture,
    TensorMap,
    /// A scalar of the type the user wrote.
    Scalar {
        type_name: String,
    },
}

/// Why a launch is refused before it runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SetupError {
    /// No `.entry` has that name (or plain name).
    NoKernel {
        name: String,
        /// The module's kernels.
        kernels: Vec<String>,
    },
    /// Several kernels have that plain name (nvcc's overloads).
    AmbiguousKernel {
        name: String,
        kernels: Vec<String>,
    },
    /// The kernel is only declared.
    NoBody {
        kernel: String,
    },
    ArgCount {
        kernel: String,
        params: usize,
        given: usize,
    },
    /// Argument `index` cannot bind to its parameter, a `.{param_type}` of
    /// `param_bytes` bytes.
    ArgMismatch {
        index: usize,
        kernel: String,
        param: String,
        param_type: String,
        param_bytes: u64,
        given: GivenArg,
    },
    /// A buffer of 4 GiB or more.
    BufferTooLarge {
        index: usize,
    },
    /// A texture or surface argument that is not well formed.
    BadTexture {
        index: usize,
        reason: stdx::texture::TextureError,
    },
    /// A tensor map the CUDA driver (or the emulator's model) refuses.
    BadTensorMap {
        reason: crate::tma::MapError,
    },
    /// A grid or block dimension (`axis` 0, 1, 2: x, y, z) out of range.
    Dimension {
        what: &'static str,
        axis: usize,
        value: u32,
        max: u32,
    },
    TooManyThreads {
        threads: u64,
    },
    TooMuchSharedMemory {
        bytes: u64,
    },
    /// A module-scope variable of a space the emulator does not place.
    ModuleVariable {
        space: &'static str,
        name: String,
    },
    TooManyVariables,
    /// A module variable's initializer holds `generic(symbol)+N` for a
    /// symbol that is no variable of the module.
    UnknownInitializerSymbol {
        var: String,
        symbol: String,
    },
    /// A cluster (`.reqnctapercluster`) of more blocks than CUDA allows.
    ClusterSize {
        blocks: u64,
        dims: [u32; 3],
    },
    /// A grid that is not made of whole clusters.
    ClusterGrid {
        axis: usize,
        grid: u32,
        cluster: u32,
        dims: [u32; 3],
    },
    /// A cooperative launch (the kernel reads `%envreg`, as
    /// `cooperative_groups::this_grid()` does) of more blocks than one
    /// GPU holds at once: the CUDA driver refuses it, as it would hang
    /// (see [`crate::cooperative`]).
    CooperativeTooLarge {
        blocks: u64,
        /// The most blocks of this shape the modelled GPU holds.
        resident: u64,
        /// Blocks of this shape one SM holds.
        per_sm: u64,
    },
    /// A cooperative launch of a kernel with clusters of more than one
    /// block, which the emulator does not model.
    CooperativeClusters {
        dims: [u32; 3],
    },
    /// No thread can run and none waits at a barrier.
    NoProgress,
}

const AXES: [&str; 3] = ["x", "y", "z"];

impl fmt::Display for SetupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SetupError::NoKernel { name, kernels } => write!(
                f,
                "no kernel (`.entry`) named `{name}` in the PTX (kernels: {})",
                if kernels.is_empty() {
                    "none".to_string()
                } else {
                    kernels.join(", ")
                }
            ),
            SetupError::AmbiguousKernel { name, kernels } => {
                let names: Vec<&str> = kernels.iter().map(String::as_str).collect();
                f.write_str(&stdx::itanium::ambiguity(name, &names))
            }
            SetupError::NoBody { kernel } => write!(f, "kernel `{kernel}` has no body"),
            SetupError::ArgCount {
                kernel,
                params,
                given,
            } => write!(
                f,
                "kernel `{kernel}` takes {params} argument{}, but {given} {} given",
                if *params == 1 { "" } else { "s" },
                if *given == 1 { "was" } else { "were" }
            ),
            SetupError::ArgMismatch {
                index: i,
                kernel,
                param,
                param_type: t,
                param_bytes: size,
                given,
            } => {
                write!(f, "argument {i}: parameter {i} of `{kernel}` (`{param}`) ")?;
                match given {
                    GivenArg::Scalar { type_name } => {
                        write!(f, "has type .{t}, but a {type_name} was given")
                    }
                    GivenArg::TensorMap => write!(
                        f,
                        "is a .{t} of {size} bytes, which a tensor map (a 128-byte by-value `CUtensorMap`) cannot be bound to"
                    ),
                    GivenArg::Texture => write!(
                        f,
                        "is a .{t} of {size} bytes, which a texture or surface object (a 64-bit handle) cannot be bound to"
                    ),
                    GivenArg::Buffer { bytes } => write!(
                        f,
                        "is a .{t} of {size} bytes, which a buffer of {bytes} bytes cannot be bound to"
                    ),
                }
            }
            SetupError::BufferTooLarge { index } => {
                write!(f, "argument {index}: a buffer must be under 4 GiB")
            }
            SetupError::BadTexture { index, reason } => write!(f, "argument {index}: {reason}"),
            SetupError::BadTensorMap { reason } => write!(f, "{reason}"),
            SetupError::Dimension {
                what,
                axis,
                value,
                max,
            } => write!(
                f,
                "{what} dimension {} is {value}; it must be between 1 and {max}",
                AXES[*axis]
            ),
            SetupError::TooManyThreads { threads } => write!(
                f,
                "a block of {threads} threads is more than the 1024 CUDA allows"
            ),
            SetupError::TooMuchSharedMemory { bytes } => write!(
                f,
                "the block needs {bytes} bytes of shared memory, more than the 232448 a GPU offers"
            ),
            SetupError::ModuleVariable { space, name } => write!(
                f,
                "module-scope .{space} variable `{name}` is not supported by the emulator"
            ),
            SetupError::TooManyVariables => {
                f.write_str("too many variables for the emulator's address windows")
            }
            SetupError::UnknownInitializerSymbol { var, symbol } => write!(
                f,
                "the initializer of `{var}` names `{symbol}`, which is no variable"
            ),
            SetupError::ClusterSize { blocks, dims } => write!(
                f,
                "a cluster of {blocks} blocks (`.reqnctapercluster {}`): a cluster has 1 to {} blocks",
                dims_text(dims),
                crate::memory::MAX_CLUSTER_BLOCKS
            ),
            SetupError::ClusterGrid {
                axis,
                grid,
                cluster,
                dims,
            } => write!(
                f,
                "grid dimension {} is {grid}, which is not a multiple of the cluster's {cluster} (`.reqnctapercluster {}`)",
                AXES[*axis],
                dims_text(dims)
            ),
            SetupError::CooperativeTooLarge {
                blocks,
                resident,
                per_sm,
            } => write!(
                f,
                "a cooperative launch (the kernel reads `%envreg`, as `this_grid()` does) of {blocks} blocks, \
                 more than the {resident} an H200 holds at once ({} SMs of {per_sm} such blocks each): \
                 every block must be resident for a grid-wide sync",
                crate::cooperative::SMS
            ),
            SetupError::CooperativeClusters { dims } => write!(
                f,
                "a cooperative launch (the kernel reads `%envreg`) of clusters of blocks \
                 (`.reqnctapercluster {}`) is not supported by the emulator",
                dims_text(dims)
            ),
            SetupError::NoProgress => {
                f.write_str("no thread can run, and none waits at a barrier")
            }
        }
    }
}

fn dims_text(dims: &[u32; 3]) -> String {
    dims.map(|d| d.to_string()).join(", ")
}

impl std::error::Error for DecodeError {}
impl std::error::Error for LoadError {}
impl std::error::Error for ResolveError {}
impl std::error::Error for SetupError {}
