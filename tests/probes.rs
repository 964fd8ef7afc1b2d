//! Probe kernels (`tests/probes/`): 73 kernels written while measuring
//! kernelc against nvcc (issue 10), of the kinds courses and libraries
//! write, not tuned for kernelc (`scripts/compare-nvcc tests/probes/*.cu`;
//! docs/performance.md has the standing). Every file must compile and
//! assemble, and every launch of `tests/probes/launches.txt` must leave the
//! same bytes in the interpreter at -O0 and in the PTX emulator at -O3.

mod common;

use kernelc::run::{execute, Engine, RunRequest};

fn dir() -> std::path::PathBuf {
    common::root().join("tests/probes")
}

#[test]
fn every_probe_kernel_compiles_and_assembles() {
    let mut files: Vec<_> = std::fs::read_dir(dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "cu"))
        .collect();
    files.sort();
    assert!(files.len() >= 7, "{} files", files.len());
    let mut kernels = 0;
    for path in files {
        let src = std::fs::read_to_string(&path).unwrap();
        kernels += src.matches("__global__").count();
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
    assert!(kernels >= 73, "{kernels} kernels");
}

fn run(file: &str, l: &common::SpecLaunch, engine: Engine, level: u8) -> Vec<Option<Vec<u8>>> {
    let req = RunRequest {
        input: dir().join(file),
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
fn probe_kernels_agree_between_interpreter_and_emulator() {
    let text = std::fs::read_to_string(dir().join("launches.txt")).unwrap();
    let mut count = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let (file, words) = line.split_once('|').expect("FILE|WORDS");
        let launch = common::parse_launch(words);
        let reference = run(file, &launch, Engine::Interp, 0);
        assert!(
            reference
                .iter()
                .flatten()
                .any(|b| b.iter().any(|&x| x != 0)),
            "{file} {launch:?}: nothing written"
        );
        let optimized = run(file, &launch, Engine::Emu, 3);
        assert!(
            reference == optimized,
            "{file} {launch:?}: the interpreter at -O0 and the emulator at -O3 differ"
        );
        count += 1;
    }
    assert!(count >= 18, "{count} launches");
}
