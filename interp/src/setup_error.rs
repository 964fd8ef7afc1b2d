//! Why a launch cannot start ([`RunError::Setup`](crate::RunError::Setup)):
//! a [`SetupError`], with the facts of the mismatch. `Display` writes the
//! message `kernelc run` prints after `error: `.

use crate::{MAX_COOPERATIVE_BLOCKS, MAX_SHARED_BYTES, MAX_THREADS_PER_BLOCK};
use midend::ir::{AddrSpace, GlobalVar, Type};
use std::fmt;

/// What is wrong with a launch: the kernel asked for, the launch shape,
/// an argument, or the module's variables. Nothing ran.
#[derive(Clone, Debug, PartialEq)]
pub enum SetupError {
    /// Several kernels have the plain name `name` (nvcc's overloads):
    /// their names in the module.
    AmbiguousKernel { name: String, kernels: Vec<String> },
    /// No kernel has the name `name`; the module's kernels.
    NoSuchKernel { name: String, kernels: Vec<String> },
    /// `name` is a device function.
    NotAKernel { name: String },
    /// The kernel `name` is only declared.
    NoBody { name: String },
    /// A dimension of the grid or the block outside `1..=max`; `axis` is
    /// 0, 1 or 2 for x, y, z.
    Dimension {
        of: Dims,
        axis: usize,
        value: u32,
        max: u32,
    },
    /// A block of more threads than [`MAX_THREADS_PER_BLOCK`].
    TooManyThreads { threads: u64 },
    /// A kernel that reaches the grid barrier launched with more blocks
    /// than [`MAX_COOPERATIVE_BLOCKS`] (a GPU refuses a cooperative launch
    /// larger than what it keeps resident).
    CooperativeGrid { blocks: u64 },
    /// Another number of arguments than the kernel has parameters.
    ArgumentCount {
        kernel: String,
        params: usize,
        args: usize,
    },
    /// Argument `index`, a texture or surface object whose resource does
    /// not hold together (`stdx::texture`'s reason).
    Texture {
        index: usize,
        reason: stdx::texture::TextureError,
    },
    /// Argument `index`, a buffer of 4 GiB or more.
    BufferTooLarge { index: usize },
    /// Argument `index` is not what parameter `index` of `kernel`, of type
    /// `param`, takes.
    Mismatch {
        index: usize,
        kernel: String,
        param: Type,
        given: Given,
    },
    /// The block's shared memory (static and dynamic) is more than
    /// [`MAX_SHARED_BYTES`].
    SharedMemory { bytes: u64 },
    /// A module variable `gv` (`@name`) in a space the interpreter has no
    /// memory for.
    UnplacedGlobal {
        gv: GlobalVar,
        name: String,
        space: AddrSpace,
    },
    /// More allocations in `space` than an address can number.
    TooManyAllocations { space: AddrSpace },
}

/// Which launch dimensions: the grid's (blocks) or the block's (threads).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Dims {
    Grid,
    Block,
}

/// What kind of argument was given for a parameter.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Given {
    Scalar(Type),
    Buffer,
    Texture,
}

impl fmt::Display for SetupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SetupError::AmbiguousKernel { name, kernels } => {
                let kernels: Vec<&str> = kernels.iter().map(String::as_str).collect();
                f.write_str(&stdx::itanium::ambiguity(name, &kernels))
            }
            SetupError::NoSuchKernel { name, kernels } => write!(
                f,
                "no kernel named `{name}` in the module (kernels: {})",
                if kernels.is_empty() {
                    "none".to_string()
                } else {
                    kernels.join(", ")
                }
            ),
            SetupError::NotAKernel { name } => write!(
                f,
                "`{name}` is a device function, not a kernel (`__global__`)"
            ),
            SetupError::NoBody { name } => write!(f, "kernel `{name}` has no body"),
            SetupError::Dimension {
                of,
                axis,
                value,
                max,
            } => write!(
                f,
                "{of} dimension {} is {value}; it must be between 1 and {max}",
                ["x", "y", "z"][*axis]
            ),
            SetupError::TooManyThreads { threads } => write!(
                f,
                "a block of {threads} threads is more than the {MAX_THREADS_PER_BLOCK} CUDA allows"
            ),
            SetupError::CooperativeGrid { blocks } => write!(
                f,
                "the kernel waits at a grid barrier (`grid_group::sync`), so its {blocks} blocks must all be resident at once; a cooperative launch has at most {MAX_COOPERATIVE_BLOCKS}"
            ),
            SetupError::ArgumentCount {
                kernel,
                params,
                args,
            } => write!(
                f,
                "kernel `{kernel}` takes {params} argument{}, but {args} {} given",
                if *params == 1 { "" } else { "s" },
                if *args == 1 { "was" } else { "were" }
            ),
            SetupError::Texture { index, reason } => write!(f, "argument {index}: {reason}"),
            SetupError::BufferTooLarge { index } => {
                write!(f, "argument {index}: a buffer must be under 4 GiB")
            }
            SetupError::Mismatch {
                index,
                kernel,
                param,
                given,
            } => {
                write!(f, "argument {index}: parameter {index} of `{kernel}` ")?;
                write_mismatch(f, *param, *given)
            }
            SetupError::SharedMemory { bytes } => write!(
                f,
                "the block needs {bytes} bytes of shared memory, more than the {MAX_SHARED_BYTES} a GPU offers"
            ),
            SetupError::UnplacedGlobal { gv, name, space } => write!(
                f,
                "module variable {gv} (@{name}) lives in {space} memory, which the interpreter cannot place"
            ),
            SetupError::TooManyAllocations { space } => {
                write!(f, "too many {space} allocations")
            }
        }
    }
}

/// The end of a mismatch's message, after "parameter N of `kernel` ".
fn write_mismatch(f: &mut fmt::Formatter<'_>, param: Type, given: Given) -> fmt::Result {
    match (param, given) {
        (param, Given::Texture) => write!(
            f,
            "has type {param}, but a texture or surface object (an i64 handle) was given"
        ),
        (Type::Ptr(space), Given::Buffer) => {
            write!(f, "is a ptr<{space}>, which no buffer can be bound to")
        }
        (Type::Ptr(space), Given::Scalar(ty)) => write!(
            f,
            "is a pointer (ptr<{space}>), but a scalar {ty} was given; pass a buffer"
        ),
        (param, Given::Buffer) => write!(f, "is a scalar {param}, but a buffer was given"),
        (param, Given::Scalar(ty)) => write!(f, "has type {param}, but a {ty} was given"),
    }
}

impl fmt::Display for Dims {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Dims::Grid => "grid",
            Dims::Block => "block",
        })
    }
}

impl std::error::Error for SetupError {}
