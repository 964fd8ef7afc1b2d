//! kernelc: a teaching-grade compiler from a CUDA-C subset to NVIDIA PTX.
//!
//! This crate is the facade and the driver. It strings the stages together
//! (frontend → midend passes → backend) in [`driver`], and it is the only
//! crate that touches the outside world: it reads files, writes output
//! atomically ([`output`]), and runs NVIDIA's `ptxas` ([`ptxas`]). [`run`] is `kernelc run`:
//! a kernel executed by the IR interpreter, with its buffers read and written.
//!
//! Architecture invariants:
//! - Only this crate does I/O or spawns processes; the stage crates take and
//!   return strings and data structures.
//! - Every error a user can cause is reported as a rendered diagnostic and
//!   exit code 1; a panic is a bug.

pub mod cli;
pub mod driver;
pub mod files;
pub mod gpu;
pub mod gpu_texture;
pub mod output;
pub mod ptxas;
pub mod run;
pub mod run_texture;

pub use backend_nvptx;
pub use frontend;
pub use midend;
