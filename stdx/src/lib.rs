//! Small shared utilities that several of kernelc's crates need and none
//! owns (after rust-analyzer's `stdx`). Nothing here knows the IR or PTX;
//! of CUDA, only where its tools are found ([`tools`]).

pub mod bits;
pub mod itanium;
pub mod parallel;
pub mod rng;
pub mod stack;
pub mod tools;
