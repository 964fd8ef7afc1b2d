//! `--regalloc=regalloc2` on everything that compiles: every sample and
//! every `test compile` filetest input, for sm_80 and sm_90, at -O0 and
//! -O3. The allocated PTX must assemble with real ptxas, and no function may
//! declare more `.b32`/`.b64`/`.pred` registers than in virtual mode (the
//! other classes are not allocated and must not change). regalloc2's SSA
//! validator and checker run on every allocation in debug builds.

mod common;

use kernelc::backend_nvptx::{self, RegallocMode, Target};
use kernelc::driver::{self, CompileOptions, Emit};
use kernelc::midend::text::parse_module;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Samples and the compile filetests' inputs (`.cu` and `.kir`).
fn inputs() -> Vec<PathBuf> {
    let mut v = Vec::new();
    for dir in ["samples", "tests/filetests/compile"] {
        for e in std::fs::read_dir(common::root().join(dir)).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|e| e == "cu" || e == "kir") {
                v.push(p);
            }
        }
    }
    v.sort();
    assert!(
        v.len() >= 10,
        "expected the samples and the compile filetests"
    );
    v
}

fn compile(
    path: &Path,
    arch: &str,
    opt_level: u8,
    regalloc: RegallocMode,
) -> Result<String, String> {
    let source = std::fs::read_to_string(path).unwrap();
    let opts = CompileOptions {
        target: Target::parse(arch).unwrap(),
        opt_level,
        regalloc,
        emit: Emit::Ptx,
        ..CompileOptions::default()
    };
    if path.extension().is_some_and(|e| e == "cu") {
        return driver::compile_source(&path.display().to_string(), &source, &opts)
            .map_err(|e| e.rendered);
    }
    let mut module = parse_module(&source).map_err(|e| e.to_string())?;
    common::optimize(&mut module, opt_level)?;
    let be = backend_nvptx::Options {
        regalloc,
        ..backend_nvptx::Options::new(opts.target)
    };
    backend_nvptx::compile_module(&module, &be).map_err(|e| e.to_string())
}

/// Per function (in order): the declared register count of each class.
fn declared(ptx: &str) -> Vec<BTreeMap<String, u32>> {
    let mut out: Vec<BTreeMap<String, u32>> = Vec::new();
    for line in ptx.lines() {
        let line = line.trim();
        if line == "{" && !out.last().is_some_and(BTreeMap::is_empty) {
            out.push(BTreeMap::new());
        }
        if let Some(rest) = line.strip_prefix(".reg ") {
            // `.reg .b32 %r<7>;` declares %r0..%r6; kernelc uses %r1..%r6.
            let (ty, decl) = rest.split_once(' ').unwrap();
            let n: u32 = decl
                .split_once('<')
                .and_then(|(_, n)| n.strip_suffix(">;"))
                .and_then(|n| n.parse().ok())
                .unwrap_or_else(|| panic!("bad .reg line `{line}`"));
            if let Some(f) = out.last_mut() {
                f.insert(ty.to_string(), n - 1);
            }
        }
    }
    out.retain(|f| !f.is_empty());
    out
}

const ALLOCATED: [&str; 3] = [".pred", ".b32", ".b64"];

/// The sum over functions of the allocated classes' counts.
fn total(regs: &[BTreeMap<String, u32>]) -> u32 {
    regs.iter()
        .flat_map(|f| ALLOCATED.iter().map(|c| f.get(*c).copied().unwrap_or(0)))
        .sum()
}

#[test]
fn regalloc2_output_assembles_and_never_grows() {
    let mut report = String::new();
    let (mut all_virtual, mut all_ra) = (0, 0);
    for path in inputs() {
        let name = path
            .strip_prefix(common::root())
            .unwrap()
            .display()
            .to_string();
        for arch in ["sm_80", "sm_90"] {
            for opt in [0u8, 3] {
                // Inputs written for sm_90 features do not compile for sm_80
                // in either mode; that is not what this test is about.
                let Ok(virt) = compile(&path, arch, opt, RegallocMode::Virtual) else {
                    continue;
                };
                let what = format!("{name} -arch={arch} -O{opt} --regalloc=regalloc2");
                let ra = compile(&path, arch, opt, RegallocMode::Regalloc2)
                    .unwrap_or_else(|e| panic!("{what}:\n{e}"));
                common::assert_ptxas_accepts(&ra, arch, &what);
                let (v, r) = (declared(&virt), declared(&ra));
                assert_eq!(v.len(), r.len(), "{what}: function count");
                for (fv, fr) in v.iter().zip(&r) {
                    for (class, &nv) in fv {
                        let nr = fr.get(class).copied().unwrap_or(0);
                        if ALLOCATED.contains(&class.as_str()) {
                            assert!(nr <= nv, "{what}: {class} grew from {nv} to {nr}");
                        } else {
                            assert_eq!(nr, nv, "{what}: unallocated {class} changed");
                        }
                    }
                }
                all_virtual += total(&v);
                all_ra += total(&r);
                if arch == "sm_90" && opt == 3 {
                    report.push_str(&format!("{name}: virtual {:?} -> regalloc2 {:?}\n", v, r));
                }
            }
        }
    }
    eprintln!("{report}allocated-class registers, all inputs: {all_virtual} -> {all_ra}");
    assert!(all_ra < all_virtual, "regalloc2 did not compact anything");
}

/// The sample kernels compact, as docs/backend.md reports.
#[test]
fn samples_shrink() {
    for stem in ["vadd", "saxpy", "matmul_clamp"] {
        let path = common::root().join(format!("samples/{stem}.cu"));
        let v = total(&declared(
            &compile(&path, "sm_90", 3, RegallocMode::Virtual).unwrap(),
        ));
        let r = total(&declared(
            &compile(&path, "sm_90", 3, RegallocMode::Regalloc2).unwrap(),
        ));
        assert!(r < v, "{stem}: {v} -> {r}");
    }
}

#[test]
fn regalloc2_output_is_deterministic() {
    for path in inputs() {
        let a = compile(&path, "sm_90", 3, RegallocMode::Regalloc2);
        let b = compile(&path, "sm_90", 3, RegallocMode::Regalloc2);
        assert_eq!(a, b, "{}", path.display());
    }
}

#[test]
fn header_names_version_and_options() {
    let path = common::root().join("samples/vadd.cu");
    let ptx = compile(&path, "sm_90", 3, RegallocMode::Regalloc2).unwrap();
    let want = format!(
        "// Generated by kernelc {} (-arch=sm_90 -O3 --fmad=true --regalloc=regalloc2)\n",
        env!("CARGO_PKG_VERSION")
    );
    assert!(ptx.starts_with(&want), "{ptx}");
}

fn mir(path: &Path, regalloc: RegallocMode) -> String {
    let source = std::fs::read_to_string(path).unwrap();
    let opts = CompileOptions {
        target: Target::parse("sm_90").unwrap(),
        regalloc,
        emit: Emit::Mir,
        ..CompileOptions::default()
    };
    driver::compile_source("samples/x.cu", &source, &opts).unwrap()
}

#[test]
fn mir_snapshots() {
    let path = common::root().join("samples/matmul_clamp.cu");
    insta::assert_snapshot!("matmul_clamp_mir", mir(&path, RegallocMode::Virtual));
    insta::assert_snapshot!(
        "matmul_clamp_mir_regalloc2",
        mir(&path, RegallocMode::Regalloc2)
    );
}

/// Every option that changes the output and differs from its default is
/// named on the first line, as spelled on the command line.
#[test]
fn header_names_every_output_changing_option() {
    let out = common::kernelc(&[
        "samples/vadd.cu",
        "-arch=sm_90",
        "-DN=4",
        "-D",
        "FLAG",
        "--ptx-version",
        "8.5",
        "--clone-budget",
        "0",
        "--track-indir-load=false",
        "--process-restrict=0",
        "--allow-restrict-in-struct",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", common::stderr(&out));
    let ptx = String::from_utf8_lossy(&out.stdout);
    let first = ptx.lines().next().unwrap();
    assert_eq!(
        first,
        format!(
            "// Generated by kernelc {} (-arch=sm_90 -O3 --fmad=true --regalloc=virtual -DN=4 -DFLAG \
             --ptx-version 8.5 --clone-budget 0 --track-indir-load=false --process-restrict=0 \
             --allow-restrict-in-struct)",
            env!("CARGO_PKG_VERSION")
        )
    );
    assert!(ptx.contains(".version 8.5"), "{ptx}");
}
