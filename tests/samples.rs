//! Every sample kernel: its PTX is snapshotted (review `.snap` diffs like
//! code), assembled by real ptxas for sm_80 and sm_90, and, when nvcc is
//! installed beside ptxas, compiled by nvcc too, so "valid for both
//! compilers" is checked rather than claimed.

mod common;

use kernelc::backend_nvptx::{RegallocMode, Target};
use kernelc::driver::{compile_source, CompileOptions, Emit};
use std::path::{Path, PathBuf};
use std::process::Command;

fn samples() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(common::root().join("samples"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "cu"))
        .collect();
    v.sort();
    assert!(v.len() >= 3, "expected at least three samples");
    v
}

fn compile(path: &Path, arch: &str, emit: Emit) -> String {
    let source = std::fs::read_to_string(path).unwrap();
    let opts = CompileOptions {
        target: Target::parse(arch).unwrap(),
        emit,
        ..CompileOptions::default()
    };
    let name = format!("samples/{}", path.file_name().unwrap().to_string_lossy());
    compile_source(&name, &source, &opts).unwrap_or_else(|e| panic!("{name}:\n{e}"))
}

fn stem(path: &Path) -> String {
    path.file_stem().unwrap().to_string_lossy().into_owned()
}

#[test]
fn sample_ptx_snapshots() {
    for path in samples() {
        let ptx = compile(&path, "sm_90", Emit::Ptx);
        insta::assert_snapshot!(format!("{}_sm_90_ptx", stem(&path)), ptx);
    }
}

#[test]
fn sample_ir_snapshots() {
    for path in samples() {
        let ir = compile(&path, "sm_90", Emit::Ir);
        insta::assert_snapshot!(format!("{}_ir", stem(&path)), ir);
        let opt = compile(&path, "sm_90", Emit::IrOpt);
        insta::assert_snapshot!(format!("{}_ir_opt", stem(&path)), opt);
    }
}

/// Every sample for sm_80, sm_90 and sm_100a, at -O0 and -O3, in both
/// register modes: real ptxas (and ptx-validate) must accept each PTX.
#[test]
fn samples_assemble_with_ptxas_for_every_main_target() {
    for path in samples() {
        let source = std::fs::read_to_string(&path).unwrap();
        for arch in ["sm_80", "sm_90", "sm_100a"] {
            for level in [0u8, 3] {
                for regalloc in [RegallocMode::Virtual, RegallocMode::Regalloc2] {
                    let opts = CompileOptions {
                        target: Target::parse(arch).unwrap(),
                        opt_level: level,
                        regalloc,
                        ..CompileOptions::default()
                    };
                    let ptx = compile_source("sample", &source, &opts).unwrap();
                    let what = format!(
                        "{} -O{level} --regalloc={regalloc} for {arch}",
                        path.display()
                    );
                    common::assert_ptxas_accepts(&ptx, arch, &what);
                }
            }
        }
    }
}

#[test]
fn samples_compile_with_nvcc() {
    let Some(nvcc) = kernelc::ptxas::find_nvcc() else {
        eprintln!(
            "SKIPPED (nvcc with nvvm not found; ./scripts/test installs it): samples through nvcc"
        );
        return;
    };
    let out_dir = std::env::temp_dir().join(format!("kernelc-nvcc-{}", std::process::id()));
    std::fs::create_dir_all(&out_dir).unwrap();
    for path in samples() {
        let out = Command::new(&nvcc)
            .args(["-ptx", "-arch=sm_90", "-I"])
            .arg(common::root().join("include"))
            .arg(&path)
            .arg("-o")
            .arg(out_dir.join(format!("{}.ptx", stem(&path))))
            .output()
            .expect("cannot run nvcc");
        assert!(
            out.status.success(),
            "nvcc rejected {}:\n{}",
            path.display(),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let _ = std::fs::remove_dir_all(&out_dir);
}
