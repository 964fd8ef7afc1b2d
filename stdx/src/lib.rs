//! Small shared utilities that several of kernelc's crates need and none
//! owns (after rust-analyzer's `stdx`). Nothing here knows the IR or PTX;
//! of CUDA, only where its tools are found ([`tools`]) and how the runtime
//! formats a device `printf` ([`printf`], which both engines run). The
//! diagnostic [`codes`] are here because every stage that reports to the
//! user (frontend, midend passes, backend) names its own.

pub mod bits;
pub mod codes;
pub mod itanium;
pub mod parallel;
pub mod printf;
pub mod rng;
pub mod stack;
pub mod texture;
pub mod tools;
