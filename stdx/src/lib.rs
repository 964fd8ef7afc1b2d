//! Small shared utilities that several of kernelc's crates need and none
//! owns (after rust-analyzer's `stdx`). Nothing here knows CUDA, the IR or
//! PTX.

pub mod parallel;
pub mod rng;
pub mod stack;
