//! `<mma.h>`: CUDA's warp matrix functions (`nvcuda::wmma`) over kernelc's
//! tensor-core built-ins (`frontend/headers/mma.h`). The corpus program
//! `tests/programs/tensor_core_gemm.cu` is checked against nvcc's PTX on
//! the emulator by `tests/programs.rs`; here its kernels run on the
//! interpreter and the emulator against a GEMM computed in the test, and
//! what the header does not provide is a located error.

mod common;

use common::{assert_ptxas_accepts, f32s, parse_launch, rejected_with, root, run_launch};
use kernelc::midend::ir::Type;
use kernelc::run::Engine;
use kir_interp::eval::{f64_to_float, float_to_f64};

const PROGRAM: &str = "tensor_core_gemm.cu";

/// A buffer of f16 bits as their values (the interpreter's conversion).
fn halves(bytes: &[u8]) -> Vec<f32> {
    bytes
        .chunks_exact(2)
        .map(|c| float_to_f64(u64::from(u16::from_le_bytes([c[0], c[1]])), Type::F16) as f32)
        .collect()
}

/// `x` rounded to bf16 (to nearest, ties to even) and back.
fn bf16(x: f32) -> f32 {
    float_to_f64(f64_to_float(f64::from(x), Type::BF16), Type::BF16) as f32
}

fn assert_close(got: &[f32], want: &[f32], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            (g - w).abs() <= 1e-4 * (1.0 + w.abs()),
            "{what}: element {i} is {g}, expected {w}"
        );
    }
}

/// Runs `spec` of the corpus program on both engines (at `-O0` and `-O3`
/// on the interpreter) and checks each result with `check`.
fn on_every_engine(spec: &str, check: impl Fn(&[Option<Vec<u8>>], &str)) {
    let dir = root().join("tests/programs");
    let launch = parse_launch(spec);
    for (engine, level) in [(Engine::Interp, 0), (Engine::Interp, 3), (Engine::Emu, 3)] {
        let buffers = run_launch(&dir, PROGRAM, &launch, engine, level);
        check(&buffers, &format!("{} {engine:?} -O{level}", launch.kernel));
    }
}

#[test]
fn a_wmma_gemm_with_alpha_and_beta_matches_a_cpu_gemm() {
    let (m, n, k) = (64, 64, 64);
    // C starts as 0, 1, 2, ... (`iota`).
    let spec = "--kernel _Z9gemmNaivePK6__halfS1_Pfiiiff --grid 1,1 --block 128,4 \
                f16[]:rand:4096:1 f16[]:rand:4096:2 f32[]:iota:4096 \
                i32:64 i32:64 i32:64 f32:2.0 f32:-0.5";
    on_every_engine(spec, |b, what| {
        let a = halves(b[0].as_ref().unwrap());
        let b_col = halves(b[1].as_ref().unwrap());
        let got = f32s(b[2].as_ref().unwrap());
        let mut want = vec![0.0f32; m * n];
        for i in 0..m {
            for j in 0..n {
                let s: f32 = (0..k).map(|x| a[i * k + x] * b_col[j * k + x]).sum();
                want[i * n + j] = 2.0 * s - 0.5 * (i * n + j) as f32;
            }
        }
        assert_close(&got, &want, what);
    });
}

#[test]
fn a_shared_memory_tiled_wmma_gemm_matches_a_cpu_gemm() {
    let (m, n, k) = (64, 64, 64);
    let spec = "--kernel _Z10gemmSharedPK6__halfS1_Pfiii --grid 2,2 --block 128 \
                f16[]:rand:4096:4 f16[]:rand:4096:5 f32[]:zeros:4096 i32:64 i32:64 i32:64";
    on_every_engine(spec, |b, what| {
        let a = halves(b[0].as_ref().unwrap());
        let b_row = halves(b[1].as_ref().unwrap());
        let got = f32s(b[2].as_ref().unwrap());
        let mut want = vec![0.0f32; m * n];
        for i in 0..m {
            for j in 0..n {
                want[i * n + j] = (0..k).map(|x| a[i * k + x] * b_row[x * n + j]).sum();
            }
        }
        assert_close(&got, &want, what);
    });
}

#[test]
fn a_bf16_tile_with_transposed_layouts_and_an_elementwise_epilogue() {
    let spec = "--kernel _Z12bf16TileReluPKfS0_Pf --grid 1 --block 32 \
                f32[]:rand:256:6 f32[]:rand:256:7 f32[]:zeros:256";
    on_every_engine(spec, |b, what| {
        let a: Vec<f32> = f32s(b[0].as_ref().unwrap()).into_iter().map(bf16).collect();
        let bm: Vec<f32> = f32s(b[1].as_ref().unwrap()).into_iter().map(bf16).collect();
        let got = f32s(b[2].as_ref().unwrap());
        let mut want = vec![0.0f32; 256];
        for i in 0..16 {
            for j in 0..16 {
                // A is column-major, B row-major, D column-major.
                let s: f32 = 1.0 + (0..16).map(|x| a[x * 16 + i] * bm[x * 16 + j]).sum::<f32>();
                want[j * 16 + i] = s.max(0.0);
            }
        }
        assert_close(&got, &want, what);
    });
}

#[test]
fn the_wmma_api_compiles_to_the_wmma_instructions_ptxas_accepts() {
    let src = std::fs::read_to_string(root().join("tests/programs").join(PROGRAM)).unwrap();
    let opts = kernelc::driver::CompileOptions {
        target: kernelc::backend_nvptx::Target::parse("sm_90").unwrap(),
        ..kernelc::driver::CompileOptions::default()
    };
    let ptx =
        kernelc::driver::compile_source(PROGRAM, &src, &opts).unwrap_or_else(|e| panic!("{e}"));
    for form in [
        "wmma.load.a.sync.aligned.row.m16n16k16",
        "wmma.load.b.sync.aligned.col.m16n16k16",
        "wmma.load.a.sync.aligned.col.m16n16k16.shared.bf16",
        "wmma.mma.sync.aligned.col.row.m16n16k16.f32.bf16.bf16.f32",
        "wmma.store.d.sync.aligned.col.m16n16k16",
    ] {
        assert!(ptx.contains(form), "no `{form}` in:\n{ptx}");
    }
    assert_ptxas_accepts(&ptx, "sm_90", PROGRAM);
}

#[test]
fn a_fragment_kernelc_does_not_provide_is_an_error_at_the_fragment() {
    for (name, fragment) in [
        (
            "half-acc",
            "wmma::fragment<wmma::accumulator, 16, 16, 16, half> f;",
        ),
        (
            "shape",
            "wmma::fragment<wmma::matrix_a, 32, 8, 16, half, wmma::row_major> f;",
        ),
        (
            "int8",
            "wmma::fragment<wmma::matrix_a, 16, 16, 16, signed char, wmma::row_major> f;",
        ),
    ] {
        let source = format!(
            "#include <mma.h>\n#include <cuda_fp16.h>\nusing namespace nvcuda;\n\
             __global__ void k(float *o) {{\n  {fragment}\n  o[0] = 1.0f;\n}}\n"
        );
        let err = rejected_with(&format!("wmma-{name}"), &source, "E0013");
        assert!(err.contains("16x16x16 tile"), "{name}: {err}");
        assert!(err.contains("included from"), "{name}: {err}");
    }
}
