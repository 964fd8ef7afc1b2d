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

use kernelc::run::{execute, Engine, RunRequest};

fn files() -> Vec<std::path::PathBuf> {
    let mut v: Vec<_> = std::fs::read_dir(common::root().join("tests/outside"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "cu"))
        .collect();
    v.sort();
    v
}

#[test]
fn every_outside_kernel_compiles_and_assembles() {
    let files = files();
    assert!(files.len() >= 30, "{} files", files.len());
    for path in files {
        let src = std::fs::read_to_string(&path).unwrap();
        let name = common::sample_name(&path);
        let ptx = kernelc::driver::compile_source(
            &name,
            &src,
            &kernelc::driver::CompileOptions {
                target: kernelc::backend_nvptx::Target::parse("sm_90").unwrap(),
                ..Default::default()
            },
        )
        .unwrap_or_else(|e| panic!("{name}: {e:?}"));
        common::assert_ptxas_accepts(&ptx, "sm_90", &name);
    }
}

/// One line of launches.txt: the file and the `kernelc run` words.
fn launches() -> Vec<(String, common::SpecLaunch)> {
    let text = std::fs::read_to_string(common::root().join("tests/outside/launches.txt")).unwrap();
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let (file, words) = l.split_once('|').expect("FILE|WORDS");
            (file.to_string(), common::parse_launch(words))
        })
        .collect()
}

fn run(file: &str, l: &common::SpecLaunch, engine: Engine, level: u8) -> Vec<Option<Vec<u8>>> {
    let req = RunRequest {
        input: common::root().join("tests/outside").join(file),
        kernel: l.kernel.clone(),
        grid: l.grid,
        block: l.block,
        shared_bytes: l.shared_bytes,
        args: l.args.clone(),
        opt_level: Some(level),
        sm: 90,
        engine,
        ..RunRequest::default()
    };
    let what = format!("{file} {} {engine:?} -O{level}", req.kernel);
    let result = execute(&req).unwrap_or_else(|e| panic!("{what}:\n{e}"));
    result.args.into_iter().map(|(_, b)| b).collect()
}

#[test]
fn outside_kernels_agree_between_interpreter_and_emulator() {
    let launches = launches();
    assert!(launches.len() >= 39, "{} launches", launches.len());
    for (file, launch) in &launches {
        let reference = run(file, launch, Engine::Interp, 0);
        assert!(
            reference
                .iter()
                .flatten()
                .any(|b| b.iter().any(|&x| x != 0)),
            "{file} {launch:?}: nothing written"
        );
        let optimized = run(file, launch, Engine::Emu, 3);
        assert!(
            reference == optimized,
            "{file} {launch:?}: the interpreter at -O0 and the emulator at -O3 differ"
        );
    }
}
