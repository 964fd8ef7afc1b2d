//! Code shared by the benchmarks (and by `tests/bench_generators.rs`, which
//! keeps it honest): kernel generators and the pipeline cut into stages.

#![allow(dead_code)]

pub mod gen;
pub mod pipeline;
