//! The warp matches `__match_any_sync` and `__match_all_sync` (sm_70):
//! the launches of tests/programs/warp_match_keys.cu that tests/programs/
//! RUNS lists give the same buffers from kernelc's PTX on the emulator, on
//! the IR interpreter at -O3 and -O0, and from nvcc's PTX on the emulator;
//! kernelc writes the `match` forms nvcc writes; every overload compiles
//! and ptxas takes it; calls no overload takes are located errors.

mod common;

use common::scratch;
use kernelc::backend_nvptx::Target;
use kernelc::driver::{compile_source, CompileOptions};
use std::path::{Path, PathBuf};

const PROGRAM: &str = "tests/programs/warp_match_keys.cu";

/// The program's launches in RUNS: the kernel and its arguments after it
/// (`--grid`, `--block` and the buffers).
fn launches() -> Vec<Vec<String>> {
    let runs = std::fs::read_to_string(common::root().join("tests/programs/RUNS")).unwrap();
    let found: Vec<Vec<String>> = runs
        .lines()
        .filter_map(|l| l.strip_prefix(PROGRAM)?.strip_prefix('|'))
        .map(|words| words.split_whitespace().map(str::to_string).collect())
        .collect();
    assert_eq!(found.len(), 3, "RUNS lists the program's three kernels");
    found
}

fn buffers(file: &Path, engine: &str, words: &[String], extra: &[&str]) -> Vec<Vec<u8>> {
    let out = scratch("warp-match-run");
    let mut argv = vec!["run", file.to_str().unwrap(), "--engine", engine];
    argv.extend(words.iter().map(String::as_str));
    argv.extend_from_slice(extra);
    argv.extend(["--out", out.to_str().unwrap()]);
    let o = common::kernelc(&argv);
    assert!(o.status.success(), "{}", common::stderr(&o));
    let mut files: Vec<PathBuf> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    let bytes = files.iter().map(|f| std::fs::read(f).unwrap()).collect();
    let _ = std::fs::remove_dir_all(&out);
    bytes
}

#[test]
fn matches_compute_what_nvcc_computes_on_both_engines() {
    let dir = scratch("warp-match");
    let src = common::root().join(PROGRAM);
    let (_, theirs) = common::fixture_ptx_and_nvcc(&src, &dir);
    let ours = dir.join("kernelc.ptx");
    for words in launches() {
        let what = &words[1];
        let from_ptx = buffers(&ours, "emu", &words, &[]);
        assert!(from_ptx.iter().any(|b| b.iter().any(|&x| x != 0)), "{what}");
        for opt in ["-O3", "-O0"] {
            let interpreted = buffers(&src, "interp", &words, &[opt]);
            assert_eq!(from_ptx, interpreted, "{what}: the interpreter at {opt}");
        }
        if let Some(theirs) = &theirs {
            let nvcc = buffers(theirs, "emu", &words, &[]);
            assert_eq!(from_ptx, nvcc, "{what}: kernelc's PTX and nvcc's disagree");
        }
    }
}

fn compile(source: &str, arch: &str) -> Result<String, String> {
    let opts = CompileOptions {
        target: Target::parse(arch).unwrap(),
        ..CompileOptions::default()
    };
    compile_source("k.cu", source, &opts).map_err(|e| e.to_string())
}

fn kernel_calling(call: &str) -> String {
    format!(
        "__global__ void k(unsigned *o, unsigned m, long long w, float f, double d) {{\n  int p;\n  o[threadIdx.x] = {call};\n  o[32] = p;\n}}\n"
    )
}

/// Each overload (and a promoted `short`) as the `match` form nvcc gives
/// it, accepted by ptxas at the oldest target and at sm_90 and sm_100a.
#[test]
fn every_overload_is_the_form_nvcc_writes() {
    let cases = [
        ("__match_any_sync(m, m)", "match.any.sync.b32"),
        ("__match_any_sync(m, (int)m)", "match.any.sync.b32"),
        ("__match_any_sync(m, (short)m)", "match.any.sync.b32"),
        ("__match_any_sync(m, f)", "match.any.sync.b32"),
        ("__match_any_sync(m, w)", "match.any.sync.b64"),
        (
            "__match_any_sync(m, (unsigned long long)w)",
            "match.any.sync.b64",
        ),
        ("__match_any_sync(m, (long)w)", "match.any.sync.b64"),
        ("__match_any_sync(m, d)", "match.any.sync.b64"),
        ("__match_all_sync(m, m, &p)", "match.all.sync.b32"),
        ("__match_all_sync(m, f, &p)", "match.all.sync.b32"),
        ("__match_all_sync(m, w, &p)", "match.all.sync.b64"),
        ("__match_all_sync(m, d, &p)", "match.all.sync.b64"),
    ];
    for (call, form) in cases {
        let src = kernel_calling(call);
        for arch in ["sm_75", "sm_90", "sm_100a"] {
            let ptx = compile(&src, arch).unwrap_or_else(|e| panic!("{call}: {e}"));
            assert!(ptx.contains(form), "{call}: no {form} in\n{ptx}");
            common::assert_ptxas_accepts(&ptx, arch, call);
        }
    }
}

/// A value no overload takes, a missing or extra argument and a predicate
/// that is not an `int *` are errors at the call.
#[test]
fn calls_no_overload_takes_are_located_errors() {
    let cases = [
        ("__match_any_sync(m, o)", "E0099", "no matching overload"),
        ("__match_any_sync(m)", "E0099", "takes 2 arguments"),
        ("__match_all_sync(m, w)", "E0099", "takes 3 arguments"),
        ("__match_all_sync(m, w, &f)", "E0004", "cannot convert"),
    ];
    for (call, code, says) in cases {
        let err = compile(&kernel_calling(call), "sm_90").expect_err(call);
        assert!(err.contains(&format!("error[{code}]")), "{call}: {err}");
        assert!(err.contains(says), "{call}: {err}");
        assert!(err.contains("k.cu:3:"), "{call}: at the call: {err}");
    }
}
