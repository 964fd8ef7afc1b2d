//! Every sample kernel: its PTX is snapshotted (review `.snap` diffs like
//! code), assembled by real ptxas for sm_80, sm_90 and sm_100a, and, when
//! nvcc is installed beside ptxas, compiled by nvcc too, so "valid for both
//! compilers" is checked rather than claimed.
//!
//! A sample that needs a newer GPU says so in a comment line of its own,
//! `// kernelc-target: sm_90` (or `sm_90a`, `sm_100a`, ...). It is then
//! snapshotted and compiled by nvcc for that target, and assembled only for
//! the main targets that can run it: those with at least its SM number,
//! and, for an arch-specific target (`a` or `f`), only that target itself.
//! Without the line a sample is snapshotted and compiled by nvcc for
//! sm_90 and assembled for every main target.

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

/// The targets every sample is assembled for, when it can run there.
const MAIN_TARGETS: [&str; 3] = ["sm_80", "sm_90", "sm_100a"];

/// The `// kernelc-target: sm_XX` line of a sample, if it has one.
fn declared_target(path: &Path) -> Option<String> {
    let source = std::fs::read_to_string(path).unwrap();
    let line = source
        .lines()
        .find_map(|l| l.trim().strip_prefix("// kernelc-target:"))?;
    let name = line.trim().to_string();
    Target::parse(&name).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    Some(name)
}

/// The target a sample is snapshotted and compiled by nvcc for.
fn own_target(path: &Path) -> String {
    declared_target(path).unwrap_or_else(|| "sm_90".to_string())
}

/// Whether code for `needed` can be compiled for `arch`: a newer or equal
/// SM, and exactly the same target when `needed` is arch-specific
/// (`sm_90a` code does not assemble for `sm_100a`, ptx-facts §1).
fn can_run(arch: &str, needed: &str) -> bool {
    let (a, n) = (Target::parse(arch).unwrap(), Target::parse(needed).unwrap());
    let specific = needed.ends_with('a') || needed.ends_with('f');
    a.sm() >= n.sm() && (!specific || arch == needed)
}

/// The targets a sample is assembled for.
fn assembly_targets(path: &Path) -> Vec<String> {
    let Some(needed) = declared_target(path) else {
        return MAIN_TARGETS.iter().map(|t| t.to_string()).collect();
    };
    let mut v: Vec<String> = MAIN_TARGETS
        .iter()
        .filter(|t| can_run(t, &needed))
        .map(|t| t.to_string())
        .collect();
    if !v.contains(&needed) {
        v.push(needed);
    }
    v
}

#[test]
fn target_lines_choose_the_targets() {
    assert!(can_run("sm_100a", "sm_90"));
    assert!(!can_run("sm_80", "sm_90"));
    assert!(!can_run("sm_100a", "sm_90a"));
    assert!(can_run("sm_90a", "sm_90a"));
    assert!(can_run("sm_100a", "sm_100a"));
    let dir = std::env::temp_dir().join(format!("kernelc-target-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("k.cu");
    std::fs::write(&p, "// kernelc-target: sm_90a\n__global__ void k() {}\n").unwrap();
    assert_eq!(assembly_targets(&p), ["sm_90a"]);
    assert_eq!(own_target(&p), "sm_90a");
    std::fs::write(&p, "// kernelc-target: sm_90\n__global__ void k() {}\n").unwrap();
    assert_eq!(assembly_targets(&p), ["sm_90", "sm_100a"]);
    std::fs::write(&p, "__global__ void k() {}\n").unwrap();
    assert_eq!(assembly_targets(&p), MAIN_TARGETS);
    assert_eq!(own_target(&p), "sm_90");
    let _ = std::fs::remove_dir_all(&dir);
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
    let Some(nvcc) = kernelc::ptxas::find_nvcc() else {
        eprintln!(
            "SKIPPED (nvcc with nvvm not found; ./scripts/test installs it): samples through nvcc"
        );
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
