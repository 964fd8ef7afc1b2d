//! Kernels written outside the compiler's own test design (`tests/outside/`):
//! 33 files, 50 kernels of the kinds courses and libraries write (GELU,
//! LayerNorm, RMSNorm, softmax cross-entropy, bitonic sort, n-body, SpMV
//! in ELL format, Sobel, Mandelbrot, radix digit counts, quantization, ...),
//! written against nvcc for measuring kernelc (`scripts/compare-nvcc
//! tests/outside/*.cu`; docs/performance.md has the table). Here every file
//! must compile and assemble, and every launch of `tests/outside/launches.txt`
//! must leave the same bytes in the interpreter at -O0 and in the PTX
//! emulator at -O3 (every pass and the backend between the two).

mod common;

fn dir() -> std::path::PathBuf {
    common::root().join("tests/outside")
}

#[test]
fn every_outside_kernel_compiles_and_assembles() {
    let (files, _) = common::assemble_every_file(&dir());
    assert!(files >= 30, "{files} files");
}

#[test]
fn outside_kernels_agree_between_interpreter_and_emulator() {
    let n = common::launches_agree(&dir());
    assert!(n >= 39, "{n} launches");
}

/// Every launch on a GPU (skipped without a CUDA driver) against the
/// emulator (`common::launches_on_the_gpu_match_the_emulator`).
#[test]
fn outside_kernels_on_the_gpu_match_the_emulator() {
    common::gpu_launches_or_skip(&dir(), "outside kernels", 39);
}
