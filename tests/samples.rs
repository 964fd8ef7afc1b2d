//! Every sample kernel: its PTX is snapshotted (review `.snap` diffs like
//! code), assembled by real ptxas for sm_80, sm_90 and sm_100a, and, when
//! nvcc is installed beside ptxas, compiled by nvcc too, so "valid for both
//! compilers" is checked rather than claimed.
//!
//! A sample that needs a newer GPU says so in a comment line of its own,
//! `// kernelc-target: sm_90` (or `sm_90a`, `sm_100a`, ...). It is then
//! snapshotted and compiled by nvcc for that target, and assembled for it
//! and for the main targets that can run it: those with at least its SM
//! number, and, for an arch-specific target (`a` or `f`), only that target
//! itself. Without the line a sample is snapshotted and compiled by nvcc
//! for sm_90 and assembled for every main target. The rules live in
//! `tests/common/mod.rs`, shared with every suite that walks the samples.

mod common;

use kernelc::backend_nvptx::{RegallocMode, Target};
use kernelc::driver::{compile_source, CompileOptions, Emit};
use std::path::{Path, PathBuf};
use std::process::Command;

fn samples() -> Vec<PathBuf> {
    let v = common::sample_paths();
    assert!(v.len() >= 3, "expected at least three samples");
    v
}

fn source(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The target a sample is snapshotted and compiled by nvcc for: its own,
/// or sm_90 when it names none.
fn own_target(path: &Path) -> String {
    common::declared_target(&source(path)).unwrap_or_else(|| "sm_90".to_string())
}

/// The targets a sample is assembled for.
fn assembly_targets(path: &Path) -> Vec<String> {
    common::assembly_targets(&source(path))
}

#[test]
fn target_lines_choose_the_targets() {
    use common::{can_run, target_for, MAIN_TARGETS};
    assert!(can_run("sm_100a", "sm_90"));
    assert!(!can_run("sm_80", "sm_90"));
    assert!(!can_run("sm_100a", "sm_90a"));
    assert!(!can_run("sm_90", "sm_90a"));
    assert!(can_run("sm_90a", "sm_90a"));
    assert!(can_run("sm_100a", "sm_100a"));
    assert!(!can_run("sm_103a", "sm_100a"));
    let dir = common::scratch("target-lines");
    let p = dir.join("k.cu");
    std::fs::write(&p, "// kernelc-target: sm_90a\n__global__ void k() {}\n").unwrap();
    assert_eq!(assembly_targets(&p), ["sm_90a"]);
    assert_eq!(own_target(&p), "sm_90a");
    assert_eq!(target_for(&source(&p), "sm_90"), "sm_90a");
    std::fs::write(&p, "// kernelc-target: sm_90\n__global__ void k() {}\n").unwrap();
    assert_eq!(assembly_targets(&p), ["sm_90", "sm_100a"]);
    assert_eq!(target_for(&source(&p), "sm_80"), "sm_90");
    assert_eq!(target_for(&source(&p), "sm_100a"), "sm_100a");
    assert_eq!(common::run_sm(&source(&p)), 90);
    std::fs::write(&p, "__global__ void k() {}\n").unwrap();
    assert_eq!(assembly_targets(&p), MAIN_TARGETS);
    assert_eq!(own_target(&p), "sm_90");
    assert_eq!(target_for(&source(&p), "sm_80"), "sm_80");
    assert_eq!(common::run_sm(&source(&p)), 80);
}

/// Every sample's target line names a target kernelc knows, and each one
/// the interpreter cannot run says why in its run spec.
#[test]
fn every_sample_has_a_known_target_and_a_run_spec() {
    for path in samples() {
        let src = source(&path);
        let _ = common::declared_target(&src);
        let name = common::sample_name(&path);
        assert!(
            common::root().join(format!("samples/{name}.run")).exists(),
            "samples/{name}.cu has no run spec"
        );
    }
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
        let arch = own_target(&path);
        let ptx = compile(&path, &arch, Emit::Ptx);
        insta::assert_snapshot!(format!("{}_{arch}_ptx", stem(&path)), ptx);
    }
}

#[test]
fn sample_ir_snapshots() {
    for path in samples() {
        let arch = own_target(&path);
        let ir = compile(&path, &arch, Emit::Ir);
        insta::assert_snapshot!(format!("{}_ir", stem(&path)), ir);
        let opt = compile(&path, &arch, Emit::IrOpt);
        insta::assert_snapshot!(format!("{}_ir_opt", stem(&path)), opt);
    }
}

/// Every sample for sm_80, sm_90 and sm_100a (those that can run it, see
/// the module doc), at -O0 and -O3, in both register modes: real ptxas
/// (and ptx-validate) must accept each PTX.
#[test]
fn samples_assemble_with_ptxas_for_every_main_target() {
    for path in samples() {
        let source = std::fs::read_to_string(&path).unwrap();
        for arch in assembly_targets(&path) {
            let arch = arch.as_str();
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
    let Some(nvcc) = common::nvcc_or_skip("samples through nvcc") else {
        return;
    };
    let out_dir = std::env::temp_dir().join(format!("kernelc-nvcc-{}", std::process::id()));
    std::fs::create_dir_all(&out_dir).unwrap();
    for path in samples() {
        let arch = format!("-arch={}", own_target(&path));
        let out = Command::new(&nvcc)
            .args(["-ptx", &arch, "-I"])
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
