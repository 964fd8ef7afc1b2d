//! Probe kernels (`tests/probes/`): 123 kernels written while measuring
//! kernelc against nvcc (issue 10), of the kinds courses and libraries
//! write, not tuned for kernelc (`scripts/compare-nvcc tests/probes/*.cu`;
//! docs/performance.md has the standing). Every file must compile and
//! assemble, and every launch of `tests/probes/launches.txt` must leave the
//! same bytes in the interpreter at -O0 and in the PTX emulator at -O3,
//! and, with a CUDA driver, the same on the GPU as in the emulator.

mod common;

fn dir() -> std::path::PathBuf {
    common::root().join("tests/probes")
}

#[test]
fn every_probe_kernel_compiles_and_assembles() {
    let (files, kernels) = common::assemble_every_file(&dir());
    assert!(files >= 12, "{files} files");
    assert!(kernels >= 123, "{kernels} kernels");
}

#[test]
fn probe_kernels_agree_between_interpreter_and_emulator() {
    let n = common::launches_agree(&dir());
    assert!(n >= 26, "{n} launches");
}

/// Every launch on a GPU (skipped without a CUDA driver) against the
/// emulator (`common::launches_on_the_gpu_match_the_emulator`).
#[test]
fn probe_kernels_on_the_gpu_match_the_emulator() {
    common::gpu_launches_or_skip(&dir(), "probe kernels", 26);
}
