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

use kernelc::run::Engine;

fn dir() -> std::path::PathBuf {
    common::root().join("tests/outside")
}

#[test]
fn every_outside_kernel_compiles_and_assembles() {
    let (files, _) = common::assemble_every_file(&dir());
    assert!(files >= 30, "{files} files");
}

fn launches() -> Vec<(String, common::SpecLaunch)> {
    common::read_launches(&dir())
}

fn run(file: &str, l: &common::SpecLaunch, engine: Engine, level: u8) -> Vec<Option<Vec<u8>>> {
    common::run_launch(&dir(), file, l, engine, level)
}

#[test]
fn outside_kernels_agree_between_interpreter_and_emulator() {
    let n = common::launches_agree(&dir());
    assert!(n >= 39, "{n} launches");
}

/// Whether a kernel's results may differ in the last bits between the GPU
/// and the emulator: an `.approx` instruction (the emulator rounds the
/// exact value; the hardware has its own error) or a float atomic add
/// (the order of the additions differs).
fn approximate(ptx: &str) -> bool {
    ptx.lines().any(|l| {
        let l = l.trim_start();
        l.contains(".approx")
            || ((l.starts_with("atom.") || l.starts_with("red.")) && l.contains(".add.f"))
    })
}

/// Every launch on a GPU (skipped without a CUDA driver), built at -O3,
/// against the emulator running the same build: the same bytes where the
/// PTX has no approximate instruction or float atomic; otherwise float
/// buffers agree to 2^-16 of the buffer's largest magnitude and integer
/// buffers exactly.
#[test]
fn outside_kernels_on_the_gpu_match_the_emulator() {
    if !kernelc::gpu::driver_available() {
        eprintln!("SKIPPED: no CUDA driver (libcuda.so not found): outside kernels on the GPU");
        return;
    }
    let (mut exact, mut close) = (0, 0);
    for (file, launch) in &launches() {
        let src = std::fs::read_to_string(common::root().join("tests/outside").join(file)).unwrap();
        let ptx = kernelc::driver::compile_source(
            file,
            &src,
            &kernelc::driver::CompileOptions {
                target: kernelc::backend_nvptx::Target::parse("sm_90").unwrap(),
                ..Default::default()
            },
        )
        .unwrap_or_else(|e| panic!("{file}: {e:?}"));
        let emu = run(file, launch, Engine::Emu, 3);
        let gpu = run(file, launch, Engine::Gpu, 3);
        let what = format!("{file} {}", launch.kernel);
        if !approximate(&ptx) {
            assert!(emu == gpu, "{what}: the GPU and the emulator differ");
            exact += 1;
            continue;
        }
        close += 1;
        for ((e, g), word) in emu.iter().zip(&gpu).zip(&launch.args) {
            let (Some(e), Some(g)) = (e, g) else {
                assert_eq!(e.is_some(), g.is_some(), "{what}");
                continue;
            };
            let values = |b: &[u8]| -> Vec<f64> {
                if word.starts_with("f32[]") {
                    b.chunks(4)
                        .map(|c| f64::from(f32::from_le_bytes(c.try_into().unwrap())))
                        .collect()
                } else {
                    b.chunks(8)
                        .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
                        .collect()
                }
            };
            if word.starts_with("f32[]") || word.starts_with("f64[]") {
                let (ev, gv) = (values(e), values(g));
                let scale = ev.iter().fold(0f64, |m, v| m.max(v.abs()));
                for (i, (a, b)) in ev.iter().zip(&gv).enumerate() {
                    assert!(
                        (a - b).abs() <= scale / 65536.0 || (a.is_nan() && b.is_nan()),
                        "{what} `{word}`[{i}]: emulator {a:e}, GPU {b:e} (largest {scale:e})"
                    );
                }
            } else {
                assert!(e == g, "{what} `{word}`: the GPU and the emulator differ");
            }
        }
    }
    eprintln!("outside kernels on the GPU: {exact} launches bit for bit, {close} within 2^-16");
}
